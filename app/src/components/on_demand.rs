//! A part of the frame drawn only once the operator first asks for it (a dialog, the
//! canvas): its code is a lazy part of the browser bundle (docs/build.md#lazy-chunks),
//! fetched the first time and kept drawn afterwards, so it opens and closes as before.

use std::future::Future;

use leptos::prelude::*;

/// Draws what `draw` yields the first time `wanted` is true and keeps it drawn from then
/// on. Neither the server nor the hydrating browser draws it (nobody has asked yet), so
/// the two agree.
#[component]
pub fn OnDemand<Draw, Drawing>(
    #[prop(into)] wanted: Signal<bool>,
    draw: Draw,
    /// Shown while the part's code is on its way.
    #[prop(optional, into)]
    fallback: ViewFn,
) -> impl IntoView
where
    Draw: Fn() -> Drawing + Send + Sync + 'static,
    Drawing: Future<Output = AnyView> + Send + 'static,
{
    let asked = Memo::new(move |was: Option<&bool>| was.copied().unwrap_or(false) || wanted.get());
    let draw = StoredValue::new(draw);
    move || {
        let fallback = fallback.clone();
        asked.get().then(|| {
            view! {
                <Suspense fallback=move || fallback.run()>
                    {Suspend::new(draw.with_value(|draw| draw()))}
                </Suspense>
            }
        })
    }
}
