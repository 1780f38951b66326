//! Chart titles with placeholders: `{point}` (a timeline's swept settings) and `{key}` (a
//! parameter's or var's value at the point), checked against the plan when the config
//! loads and filled when a chart is drawn.

use coordsim_model::{ChartKind, Value};

use super::Plan;
use super::read::Loader;
use crate::source::{ConfigError, Span};

/// A chart title's placeholders: `{point}` (a timeline's swept settings) and `{key}` (a
/// parameter's value); `{{` and `}}` are braces. Returns the pieces in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TitlePiece {
    /// Text as written.
    Text(String),
    /// `{point}`.
    Point,
    /// `{key}`: a parameter or var, by its index in a point's values.
    Key(usize),
}

/// Fills a title's placeholders at a point.
pub(crate) fn fill_title(
    pieces: &[TitlePiece],
    plan: &Plan,
    values: &[Value],
    point_text: &str,
) -> String {
    let mut out = String::new();
    for piece in pieces {
        match piece {
            TitlePiece::Text(t) => out.push_str(t),
            TitlePiece::Point => out.push_str(point_text),
            TitlePiece::Key(i) => out.push_str(&plan.value_text(&values[*i])),
        }
    }
    out
}

impl Loader<'_> {
    /// A custom title's placeholders, checked: `{point}` only on a timeline (one file per
    /// point), `{key}` a parameter or var with one value over the points the chart draws.
    pub(super) fn title_pieces(
        &self,
        plan: &Plan,
        title: Option<&str>,
        at: Span,
        filter: &[(usize, Value)],
        kind: ChartKind,
    ) -> Result<Vec<TitlePiece>, ConfigError> {
        let Some(title) = title else {
            return Ok(Vec::new());
        };
        let names = plan.key_names();
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut rest = title;
        while let Some(i) = rest.find(['{', '}']) {
            text.push_str(&rest[..i]);
            let tail = &rest[i..];
            if let Some(after) = tail.strip_prefix("{{") {
                text.push('{');
                rest = after;
                continue;
            }
            if let Some(after) = tail.strip_prefix("}}") {
                text.push('}');
                rest = after;
                continue;
            }
            let close = tail.find('}').filter(|_| tail.starts_with('{'));
            let Some(close) = close else {
                return Err(self.err(
                    &at,
                    "a lone brace in `title`: `{name}` is a placeholder, `{{` and `}}` are braces",
                ));
            };
            let name = &tail[1..close];
            if !text.is_empty() {
                pieces.push(TitlePiece::Text(std::mem::take(&mut text)));
            }
            if name == "point" {
                if kind != ChartKind::Timeline {
                    return Err(self.err(
                        &at,
                        "`{point}` in `title` is a timeline's point (one file per point); name a parameter instead (`{key}`)",
                    ));
                }
                pieces.push(TitlePiece::Point);
            } else if let Some(k) = names.iter().position(|n| *n == name) {
                // One value over the chart's points, or a timeline (one point per file).
                if kind != ChartKind::Timeline {
                    let mut seen: Vec<String> = Vec::new();
                    for p in (0..plan.points).filter(|p| plan.matches(*p, filter)) {
                        let v = plan.value_text(&plan.point_values(p)[k]);
                        if !seen.contains(&v) {
                            seen.push(v);
                        }
                        if seen.len() > 1 {
                            return Err(self.err(
                                &at,
                                format!(
                                    "`{{{name}}}` in `title` has several values over the points this chart draws ({}, …); pin it with `where`, or leave it to the legend",
                                    seen.join(", ")
                                ),
                            ));
                        }
                    }
                }
                pieces.push(TitlePiece::Key(k));
            } else {
                return Err(self.err(
                    &at,
                    format!(
                        "unknown placeholder `{{{name}}}` in `title`; valid: {{point}} (timelines), {}",
                        names
                            .iter()
                            .map(|n| format!("{{{n}}}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
            rest = &tail[close + 1..];
        }
        text.push_str(rest);
        if !text.is_empty() {
            pieces.push(TitlePiece::Text(text));
        }
        Ok(pieces)
    }
}
