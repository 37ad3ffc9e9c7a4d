//! UI building blocks; each renders the data it is given and reports user intent upward.

pub mod context_pane;
pub mod sidebar;
