//! The pages outside the daily loop, each a lazy part of the browser bundle: a page's
//! code is fetched the first time it is shown, and before hydrating when the server
//! rendered it, so the first load holds the frame, the home page and the thread page
//! (docs/build.md#lazy-chunks). The Trunk build and native builds draw them directly.

use leptos::prelude::*;
use leptos_router::LazyRoute;

use crate::model::section::Section;
use crate::pages::audit::AuditPage;
use crate::pages::curator::CuratorPage;
use crate::pages::gallery::GalleryPage;
use crate::pages::members::MembersPage;
use crate::pages::memory::MemoryPage;
use crate::pages::note::NotePage;
use crate::pages::notes::NotesPage;
use crate::pages::passvault::PassvaultPage;
use crate::pages::project::ProjectPageView;
use crate::pages::projects::ProjectsPage;
use crate::pages::schedules::SchedulesPage;
use crate::pages::section::SectionPage;
use crate::pages::sign_in::LoginPage;
use crate::pages::sign_in::SetupPage;

/// A route whose page `$draw` draws, split off at `$draw`. The router awaits `preload`
/// before hydrating, so the page's code is there when the server's page is taken over;
/// without it the page would be drawn a second time beside the server's.
macro_rules! lazy_page {
    ($route:ident, $draw:ident, $preload:ident, $page:expr) => {
        pub struct $route;

        impl LazyRoute for $route {
            fn data() -> Self {
                Self
            }

            async fn view(_this: Self) -> AnyView {
                $draw().await
            }

            async fn preload() {
                #[cfg(all(feature = "hydrate", target_arch = "wasm32"))]
                $preload().await;
            }
        }

        #[cfg_attr(all(feature = "hydrate", target_arch = "wasm32"), lazy)]
        async fn $draw() -> AnyView {
            $page.into_any()
        }
    };
}

lazy_page!(
    Projects,
    projects_page,
    __preload_projects_page,
    view! { <ProjectsPage /> }
);

lazy_page!(
    Project,
    project_page,
    __preload_project_page,
    view! { <ProjectPageView /> }
);

lazy_page!(
    Notes,
    notes_page,
    __preload_notes_page,
    view! { <NotesPage /> }
);

lazy_page!(Note, note_page, __preload_note_page, view! { <NotePage /> });

lazy_page!(
    Memory,
    memory_page,
    __preload_memory_page,
    view! { <MemoryPage /> }
);

lazy_page!(
    Passvault,
    passvault_page,
    __preload_passvault_page,
    view! { <PassvaultPage /> }
);

lazy_page!(
    Schedules,
    schedules_page,
    __preload_schedules_page,
    view! { <SchedulesPage /> }
);

lazy_page!(
    Kanban,
    kanban_page,
    __preload_kanban_page,
    view! { <SectionPage section=Section::Kanban /> }
);

lazy_page!(
    CuratorJobs,
    curator_jobs_page,
    __preload_curator_jobs_page,
    view! { <CuratorPage /> }
);

lazy_page!(
    Audit,
    audit_page,
    __preload_audit_page,
    view! { <AuditPage /> }
);

lazy_page!(
    Gallery,
    gallery_page,
    __preload_gallery_page,
    view! { <GalleryPage /> }
);

lazy_page!(
    Members,
    members_page,
    __preload_members_page,
    view! { <MembersPage /> }
);

lazy_page!(
    Login,
    login_page,
    __preload_login_page,
    view! { <LoginPage /> }
);

lazy_page!(
    Setup,
    setup_page,
    __preload_setup_page,
    view! { <SetupPage /> }
);
