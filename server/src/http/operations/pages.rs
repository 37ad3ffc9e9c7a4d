//! The console's pages (each a route of the Leptos router, rendered on the server and
//! hydrated), the files of the built site, the health check and the demo agents' mount.

use app::model::Role::{Owner, Viewer};

use super::{Answer, Body, Operation, Serve};

const fn page(path: &'static str, summary: &'static str, role: app::model::Role) -> Operation {
    Operation::get(path, summary)
        .needs(role)
        .answer(Answer::Page)
        .serve(Serve::Page)
}

const fn open_page(path: &'static str, summary: &'static str) -> Operation {
    Operation::get(path, summary)
        .public()
        .answer(Answer::Page)
        .serve(Serve::Page)
}

pub const OPERATIONS: &[Operation] = &[
    open_page("/login", "the sign-in page"),
    open_page("/setup", "the first owner's page, with the setup link"),
    page("/", "home: new thread and the inbox", Viewer),
    page("/new", "a new thread, made with its first message", Viewer),
    page("/threads/{id}", "a thread", Viewer),
    page("/projects", "the projects", Viewer),
    page("/projects/{id}", "a project", Viewer),
    page("/notes", "the notes", Viewer),
    page("/notes/{id}", "a note", Viewer),
    page("/memory", "memory and its review queue", Viewer),
    page("/passvault", "the passvault", Viewer),
    page("/schedules", "schedules", Viewer),
    page("/kanban", "the kanban board", Viewer),
    page("/curator", "the curator's jobs", Viewer),
    page("/gallery", "the component gallery", Viewer),
    page("/audit", "the audit trail", Owner),
    page("/members", "members, invitations and tokens", Owner),
    Operation::get("/pkg/{*file}", "the browser bundle: wasm, JS glue, CSS")
        .public()
        .answer(Answer::File)
        .serve(Serve::Asset),
    Operation::get("/favicon.svg", "the icon")
        .public()
        .answer(Answer::File)
        .serve(Serve::Asset),
    Operation::get("/healthz", "whether the server answers")
        .public()
        .answer(Answer::File)
        .by(|verb| axum::routing::on(verb, || async { "ok" })),
    demo(super::Verb::Get),
    demo(super::Verb::Post),
];

/// The demo agents under `/demo/` (their own routes are theirs, as any peer's are).
const fn demo(verb: super::Verb) -> Operation {
    Operation::new(verb, "/demo/{*rest}", "the built-in demo agents")
        .demo()
        .body(Body::Any)
        .answer(Answer::Any)
        .serve(Serve::Demo)
}
