//! The console's frame preferences: collapsible and resizable panes and the colour theme,
//! remembered in this browser's local storage.

use leptos::prelude::*;

/// Which side pane a control acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    Sidebar,
    Context,
}

impl Pane {
    fn name(self) -> &'static str {
        match self {
            Pane::Sidebar => "sidebar",
            Pane::Context => "context pane",
        }
    }

    #[cfg_attr(not(any(feature = "hydrate", feature = "csr")), allow(dead_code))]
    fn storage_key(self) -> &'static str {
        match self {
            Pane::Sidebar => "agent-os.sidebar",
            Pane::Context => "agent-os.context",
        }
    }

    /// Default, smallest and largest width in pixels.
    fn widths(self) -> (i32, i32, i32) {
        match self {
            Pane::Sidebar => (256, 180, 480),
            Pane::Context => (320, 220, 720),
        }
    }
}

/// The colour theme: the system's, or one chosen here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    System,
    Light,
    Dark,
}

impl Theme {
    const ALL: [Theme; 3] = [Theme::System, Theme::Light, Theme::Dark];

    fn label(self) -> &'static str {
        match self {
            Theme::System => "System",
            Theme::Light => "Light",
            Theme::Dark => "Dark",
        }
    }

    #[cfg_attr(not(any(feature = "hydrate", feature = "csr")), allow(dead_code))]
    fn attribute(self) -> Option<&'static str> {
        match self {
            Theme::System => None,
            Theme::Light => Some("light"),
            Theme::Dark => Some("dark"),
        }
    }
}

/// Where the theme choice is kept; the boot script below reads the same key.
#[cfg_attr(not(any(feature = "hydrate", feature = "csr")), allow(dead_code))]
const THEME_KEY: &str = "agent-os.theme";

/// Applies the remembered theme before the first paint, so a dark console never flashes
/// light while the bundle loads.
pub const THEME_BOOT_SCRIPT: &str = "try{var t=localStorage.getItem('agent-os.theme');\
if(t==='light'||t==='dark')document.documentElement.setAttribute('data-theme',t)}catch(e){}";

/// Whether the panes stack into one column (the stylesheet's 900 px breakpoint).
fn narrow_screen() -> bool {
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    return window()
        .match_media("(max-width: 900px)")
        .ok()
        .flatten()
        .is_some_and(|query| query.matches());
    #[cfg(not(any(feature = "hydrate", feature = "csr")))]
    false
}

/// Pane widths and visibility, shared by the shell and the controls in each pane.
#[derive(Clone, Copy)]
pub struct Layout {
    pub sidebar_open: RwSignal<bool>,
    /// On a narrow screen the sidebar is a drawer over the page: open or not.
    pub drawer_open: RwSignal<bool>,
    pub context_open: RwSignal<bool>,
    /// On a narrow screen the context pane is a sheet over the page: open or not.
    pub sheet_open: RwSignal<bool>,
    /// The canvas's width in pixels; 0 for half the window.
    pub canvas_width: RwSignal<i32>,
    pub sidebar_width: RwSignal<i32>,
    pub context_width: RwSignal<i32>,
    pub theme: RwSignal<Theme>,
}

impl Layout {
    /// Brings the sidebar into view: unfolded, and on a narrow screen its drawer open.
    pub fn reveal_sidebar(self) {
        self.sidebar_open.set(true);
        if narrow_screen() {
            self.drawer_open.set(true);
        }
    }

    /// Brings the context pane into view: unfolded, and on a narrow screen its sheet open.
    pub fn reveal_context(self) {
        self.context_open.set(true);
        if narrow_screen() {
            self.sheet_open.set(true);
        }
    }

    fn open(self, pane: Pane) -> RwSignal<bool> {
        match pane {
            Pane::Sidebar => self.sidebar_open,
            Pane::Context => self.context_open,
        }
    }

    fn width(self, pane: Pane) -> RwSignal<i32> {
        match pane {
            Pane::Sidebar => self.sidebar_width,
            Pane::Context => self.context_width,
        }
    }

    /// The inline style of the shell: the two pane widths as CSS custom properties.
    pub fn shell_style(self) -> String {
        let canvas = match self.canvas_width.get() {
            0 => "50vw".to_owned(),
            width => format!("{width}px"),
        };
        format!(
            "--sidebar-width: {}px; --context-width: {}px; --canvas-width: {canvas}",
            self.sidebar_width.get(),
            self.context_width.get()
        )
    }
}

/// Creates the layout (defaults first, so server and browser render alike), restores the
/// remembered choices once hydrated, and keeps them remembered.
pub fn provide_layout() -> Layout {
    let layout = Layout {
        sidebar_open: RwSignal::new(true),
        drawer_open: RwSignal::new(false),
        context_open: RwSignal::new(true),
        sheet_open: RwSignal::new(false),
        canvas_width: RwSignal::new(0),
        sidebar_width: RwSignal::new(Pane::Sidebar.widths().0),
        context_width: RwSignal::new(Pane::Context.widths().0),
        theme: RwSignal::new(Theme::System),
    };
    provide_context(layout);
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    browser::remember(layout);
    layout
}

#[cfg(any(feature = "hydrate", feature = "csr"))]
mod browser {
    use leptos::prelude::*;

    use super::{Layout, Pane, THEME_KEY, Theme};

    fn storage() -> Option<web_sys::Storage> {
        window().local_storage().ok().flatten()
    }

    fn read(key: &str) -> Option<String> {
        storage()?.get_item(key).ok().flatten()
    }

    fn write(key: &str, value: &str) {
        if let Some(storage) = storage() {
            let _ = storage.set_item(key, value);
        }
    }

    pub fn remember(layout: Layout) {
        Effect::new(move |restored: Option<()>| {
            if restored.is_none() {
                for pane in [Pane::Sidebar, Pane::Context] {
                    // Stored as "open:width", e.g. "1:300".
                    if let Some((open, width)) = read(pane.storage_key())
                        .as_deref()
                        .and_then(|value| value.split_once(':'))
                    {
                        layout.open(pane).set(open == "1");
                        if let Ok(width) = width.parse::<i32>() {
                            let (_, min, max) = pane.widths();
                            layout.width(pane).set(width.clamp(min, max));
                        }
                    }
                }
                let theme = match read(THEME_KEY).as_deref() {
                    Some("light") => Theme::Light,
                    Some("dark") => Theme::Dark,
                    _ => Theme::System,
                };
                layout.theme.set(theme);
            }
            for pane in [Pane::Sidebar, Pane::Context] {
                let value = format!(
                    "{}:{}",
                    if layout.open(pane).get() { 1 } else { 0 },
                    layout.width(pane).get()
                );
                write(pane.storage_key(), &value);
            }
        });
        Effect::new(move |_| {
            let theme = layout.theme.get();
            if let Some(root) = document().document_element() {
                let _ = match theme.attribute() {
                    Some(value) => root.set_attribute("data-theme", value),
                    None => root.remove_attribute("data-theme"),
                };
            }
            write(THEME_KEY, theme.attribute().unwrap_or("system"));
        });
    }
}

fn layout() -> Layout {
    expect_context::<Layout>()
}

/// Collapses or expands a side pane; it stays in the pane so it is found where the pane is.
#[component]
pub fn PaneToggle(pane: Pane) -> impl IntoView {
    let open = layout().open(pane);
    let controls = match pane {
        Pane::Sidebar => "sidebar",
        Pane::Context => "context-pane",
    };
    let label = move || {
        format!(
            "{} {}",
            if open.get() { "Collapse" } else { "Expand" },
            pane.name()
        )
    };
    let glyph = move || match (pane, open.get()) {
        (Pane::Sidebar, true) | (Pane::Context, false) => "⟨",
        _ => "⟩",
    };
    view! {
        <button type="button" class="pane-toggle" aria-controls=controls aria-expanded=move || open.get().to_string()
            aria-label=label title=label on:click=move |_| open.update(|open| *open = !*open)>
            <span aria-hidden="true">{glyph}</span>
        </button>
    }
}

/// The bar a narrow screen shows above the page: the button that opens the sidebar as a
/// drawer, and the console's name. Hidden on wide screens.
#[component]
pub fn NarrowBar() -> impl IntoView {
    let drawer = layout().drawer_open;
    let sheet = layout().sheet_open;
    let toggle: NodeRef<leptos::html::Button> = NodeRef::new();
    let sheet_toggle: NodeRef<leptos::html::Button> = NodeRef::new();
    // The sheet takes focus as it opens and gives it back to its button as it closes.
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    Effect::new(move |was_open: Option<bool>| {
        let open = sheet.get();
        if open {
            request_animation_frame(|| {
                crate::components::focus::focus_by_id("context-sheet-close")
            });
        } else if was_open == Some(true)
            && let Some(button) = sheet_toggle.get_untracked()
        {
            let _ = button.focus();
        }
        open
    });
    // Focus goes into the drawer as it opens and back to its button as it closes.
    #[cfg(any(feature = "hydrate", feature = "csr"))]
    Effect::new(move |was_open: Option<bool>| {
        let open = drawer.get();
        if open {
            // After the frame that shows the drawer: hidden elements take no focus.
            request_animation_frame(|| {
                if let Some(sidebar) = document().get_element_by_id("sidebar") {
                    crate::components::focus::focus_first_shown(&sidebar, "a, button, select");
                }
            });
        } else if was_open == Some(true)
            && let Some(button) = toggle.get_untracked()
        {
            let _ = button.focus();
        }
        open
    });
    view! {
        <header class="narrow-bar">
            <button type="button" class="button small ghost drawer-toggle" aria-controls="sidebar" node_ref=toggle
                aria-expanded=move || drawer.get().to_string()
                on:click=move |_| drawer.update(|open| *open = !*open)>
                <span aria-hidden="true">"☰ "</span>"Menu"
            </button>
            <span class="narrow-brand">"Agent OS"</span>
            <button type="button" class="button small ghost sheet-toggle" aria-controls="context-pane" node_ref=sheet_toggle
                aria-expanded=move || sheet.get().to_string()
                on:click=move |_| sheet.update(|open| *open = !*open)>
                "Context"
            </button>
        </header>
        <div class="drawer-backdrop" hidden=move || !drawer.get() on:click=move |_| drawer.set(false)></div>
        <div class="drawer-backdrop sheet-backdrop" hidden=move || !sheet.get() on:click=move |_| sheet.set(false)></div>
    }
}

/// A draggable, keyboard-operable edge between a side pane and the main area.
#[component]
pub fn PaneResizer(pane: Pane) -> impl IntoView {
    let layout = layout();
    let width = layout.width(pane);
    let open = layout.open(pane);
    let (_, min, max) = pane.widths();
    // Dragging the sidebar's edge right widens it; the context pane's edge, left.
    let direction = match pane {
        Pane::Sidebar => 1,
        Pane::Context => -1,
    };
    let drag = RwSignal::new(None::<(i32, i32)>);
    let on_pointerdown = move |event: leptos::ev::PointerEvent| {
        drag.set(Some((event.client_x(), width.get_untracked())));
        #[cfg(any(feature = "hydrate", feature = "csr"))]
        {
            use wasm_bindgen::JsCast;
            if let Some(target) = event
                .target()
                .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
            {
                let _ = target.set_pointer_capture(event.pointer_id());
            }
        }
    };
    let on_pointermove = move |event: leptos::ev::PointerEvent| {
        if let Some((start_x, start_width)) = drag.get_untracked() {
            let moved = (event.client_x() - start_x) * direction;
            width.set((start_width + moved).clamp(min, max));
        }
    };
    let on_pointerup = move |_| drag.set(None);
    let on_keydown = move |event: leptos::ev::KeyboardEvent| {
        let step = if event.shift_key() { 64 } else { 16 };
        let change = match event.key().as_str() {
            "ArrowRight" => step * direction,
            "ArrowLeft" => -step * direction,
            "Home" => min - width.get_untracked(),
            "End" => max - width.get_untracked(),
            _ => return,
        };
        event.prevent_default();
        width.update(|width| *width = (*width + change).clamp(min, max));
    };
    view! {
        <div class=format!("pane-resizer {}", match pane { Pane::Sidebar => "sidebar-edge", Pane::Context => "context-edge" })
            role="separator" aria-orientation="vertical" tabindex="0"
            aria-label=format!("Resize {}", pane.name())
            aria-valuemin=min.to_string() aria-valuemax=max.to_string()
            aria-valuenow=move || width.get().to_string()
            hidden=move || !open.get()
            on:pointerdown=on_pointerdown on:pointermove=on_pointermove on:pointerup=on_pointerup
            on:pointercancel=on_pointerup on:keydown=on_keydown>
        </div>
    }
}

/// System, light or dark.
#[component]
pub fn ThemeSwitch() -> impl IntoView {
    let theme = layout().theme;
    view! {
        <div class="segmented theme-switch" role="group" aria-label="Theme">
            {Theme::ALL
                .into_iter()
                .map(|choice| view! {
                    <button type="button" class="button small" aria-pressed=move || (theme.get() == choice).to_string()
                        on:click=move |_| theme.set(choice)>{choice.label()}</button>
                })
                .collect_view()}
        </div>
    }
}

/// The right-hand pane every page fills: its toggle first, then the page's sections.
#[component]
pub fn ContextFrame(children: Children) -> impl IntoView {
    let sheet = layout().sheet_open;
    view! {
        <aside class="context-pane" id="context-pane" aria-label="Context">
            <PaneToggle pane=Pane::Context />
            <div class="sheet-head">
                <h2>"Context"</h2>
                <button type="button" class="button small ghost" id="context-sheet-close"
                    on:click=move |_| sheet.set(false)>"Close"</button>
            </div>
            <div class="pane-body">{children()}</div>
        </aside>
    }
}
