//! Rebuilds the server when a migration changes: `sqlx::migrate!` embeds them at compile
//! time, and cargo does not otherwise know it read them.

fn main() {
    println!("cargo:rerun-if-changed=src/store/migrations");
}
