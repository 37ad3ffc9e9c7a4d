//! Which slice of a long list is rendered: the rows in and near the viewport, with two
//! spacers standing in for the rest, so a 10,000-item run costs about what a 100-item
//! one does. Short lists render whole.

use leptos::prelude::*;

#[cfg(any(feature = "hydrate", feature = "csr"))]
use crate::components::scroll_port::ScrollPort;

/// Lists shorter than this render every row.
pub const WINDOW_FROM: usize = 200;
/// Rows rendered at the live end while the view follows it.
const TAIL: usize = 60;
/// Rows rendered beyond each edge of the viewport, so a scroll shows no blank strip.
const OVERSCAN: usize = 20;

/// The rendered rows, `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    pub start: usize,
    pub end: usize,
}

impl Slice {
    pub fn whole(count: usize) -> Slice {
        Slice {
            start: 0,
            end: count,
        }
    }

    /// The live end of a list of `count` rows.
    pub fn tail(count: usize) -> Slice {
        if count < WINDOW_FROM {
            return Slice::whole(count);
        }
        Slice {
            start: count.saturating_sub(TAIL),
            end: count,
        }
    }

    /// The rows that cover pixels `top..bottom` of the list (relative to its first row's
    /// top) at an estimated `row_height` each, plus the overscan on both sides.
    pub fn covering(count: usize, row_height: f64, top: f64, bottom: f64) -> Slice {
        if count < WINDOW_FROM {
            return Slice::whole(count);
        }
        let row_height = row_height.max(1.0);
        let row_at = |pixel: f64| ((pixel.max(0.0) / row_height) as usize).min(count);
        let start = row_at(top).saturating_sub(OVERSCAN);
        let end = (row_at(bottom) + 1 + OVERSCAN).min(count).max(start);
        Slice { start, end }
    }
}

/// A windowed list: its root element, its slice and the row height estimate.
#[derive(Clone, Copy)]
pub struct Windowing {
    pub root: NodeRef<leptos::html::Div>,
    pub slice: Memo<Slice>,
    pub row_height: RwSignal<f64>,
    pub count: Memo<usize>,
}

impl Windowing {
    /// Follows the tail until the reader scrolls away from the live end; then renders
    /// the rows under the viewport. Without a scroll port (or on the server) the tail.
    pub fn new(count: Memo<usize>, default_row_height: f64) -> Windowing {
        let root: NodeRef<leptos::html::Div> = NodeRef::new();
        let row_height = RwSignal::new(default_row_height);
        let anchored = RwSignal::new(None::<Slice>);
        let slice = Memo::new(move |_| {
            let count = count.get();
            match anchored.get() {
                Some(slice) if count >= WINDOW_FROM => Slice {
                    start: slice.start.min(count),
                    end: slice.end.min(count),
                },
                _ => Slice::tail(count),
            }
        });
        #[cfg(any(feature = "hydrate", feature = "csr"))]
        if let Some(port) = use_context::<ScrollPort>() {
            Effect::new(move |_| {
                port.scrolled.track();
                let count = count.get();
                if count < WINDOW_FROM {
                    return;
                }
                if port.following.get() {
                    anchored.set(None);
                    return;
                }
                let (Some(port_element), Some(list)) =
                    (port.element.get_untracked(), root.get_untracked())
                else {
                    return;
                };
                let view = port_element.get_bounding_client_rect();
                let list_rect = list.get_bounding_client_rect();
                let current = slice.get_untracked();
                let rendered = current.end - current.start;
                let height = row_height.get_untracked();
                if rendered > 0 {
                    let spacers = (count - rendered) as f64 * height;
                    let measured = (list_rect.height() - spacers) / rendered as f64;
                    if measured > 1.0 && (measured - height).abs() / height > 0.1 {
                        row_height.set(measured);
                    }
                }
                let top = view.top() - list_rect.top();
                let bottom = view.bottom() - list_rect.top();
                anchored.set(Some(Slice::covering(
                    count,
                    row_height.get_untracked(),
                    top,
                    bottom,
                )));
            });
        }
        Windowing {
            root,
            slice,
            row_height,
            count,
        }
    }

    /// The spacer heights above and below the rendered rows, as CSS.
    pub fn spacer_above(self) -> String {
        let slice = self.slice.get();
        format!(
            "height: {}px",
            (slice.start as f64 * self.row_height.get()).round()
        )
    }

    pub fn spacer_below(self) -> String {
        let slice = self.slice.get();
        let count = self.count.get();
        format!(
            "height: {}px",
            (count.saturating_sub(slice.end) as f64 * self.row_height.get()).round()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lists_render_whole() {
        assert_eq!(Slice::tail(10), Slice::whole(10));
        assert_eq!(
            Slice::covering(10, 50.0, 5_000.0, 6_000.0),
            Slice::whole(10)
        );
    }

    #[test]
    fn a_long_list_follows_its_tail() {
        assert_eq!(
            Slice::tail(10_000),
            Slice {
                start: 10_000 - TAIL,
                end: 10_000
            }
        );
    }

    #[test]
    fn the_viewport_rows_and_the_overscan_are_rendered() {
        let slice = Slice::covering(10_000, 50.0, 50_000.0, 50_800.0);
        assert_eq!(
            slice,
            Slice {
                start: 1_000 - OVERSCAN,
                end: 1_016 + 1 + OVERSCAN
            }
        );
    }

    #[test]
    fn a_viewport_past_either_end_renders_the_nearest_rows_only() {
        let above = Slice::covering(10_000, 50.0, -900.0, -100.0);
        assert_eq!(
            above,
            Slice {
                start: 0,
                end: 1 + OVERSCAN
            }
        );
        let below = Slice::covering(10_000, 50.0, 900_000.0, 901_000.0);
        assert_eq!(below.end, 10_000);
        assert_eq!(below.start, 10_000 - OVERSCAN);
    }
}
