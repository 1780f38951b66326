//! Live charts: each line or bar chart's points, embedded in its config's page as a small
//! JSON block beside its image, which `site.js` reads to show a point's values under the
//! pointer, a tap or the keyboard's focus, to save the points as CSV and to pick out one
//! series. The image itself is the same SVG with or without script; without script the
//! block is never read.
//!
//! The block (keys short: a page may hold a dozen charts of a hundred points):
//!
//! ```json
//! {"w":[1000,600],"n":[340,510],"x":"x axis","y":"y axis","ci":"95% interval","bar":1,
//!  "cat":["a","b"],
//!  "s":[{"l":"legend","c":"#0072b2","r":1,"p":[[x,y,X,Y,NX,NY,lo,hi]]}]}
//! ```
//!
//! `w` and `n`: the sizes of `NAME.svg` and `NAME.narrow.svg`; `x`, `y`, `ci`: the axis
//! titles and the interval's legend text; `bar` on a bar chart (a point is a bar's top);
//! `cat` (a chart over text values only): the category of x = 0, 1, …; `s`: each series,
//! its legend text `l`, colour `c`, `r` on a reference line (theory), and its points: the
//! x and the y it draws (the mean over replications), where each rendering draws it
//! (`null`: not drawn there), and its 95%
//! interval when the chart draws one. A reference line keeps its points at the data's x
//! values only. Every number is as exact as the report's CSV files write it.

use std::fmt::Write;

use super::words::{Words, say};
use crate::export::chart::Live;

/// A number as JSON, as short as it reads back exactly (`10`, not `10.0`); `null` for one
/// JSON cannot hold.
fn number(out: &mut String, x: f64) {
    if !x.is_finite() {
        out.push_str("null");
    } else if x.fract() == 0.0 && x.abs() < 1e15 {
        let _ = write!(out, "{}", x as i64);
    } else {
        out.push_str(&serde_json::Value::from(x).to_string());
    }
}

fn text(out: &mut String, s: &str) {
    out.push_str(&serde_json::Value::from(s).to_string());
}

fn at(out: &mut String, p: Option<(i32, i32)>) {
    match p {
        Some((x, y)) => {
            let _ = write!(out, "{x},{y}");
        }
        None => out.push_str("null,null"),
    }
}

/// The chart's block (see the module's documentation).
pub(crate) fn points(live: &Live) -> String {
    let data = &live.data;
    let mut out = String::new();
    let _ = write!(
        out,
        "{{\"w\":[{},{}],\"n\":[{},{}],\"x\":",
        live.full.size.0, live.full.size.1, live.narrow.size.0, live.narrow.size.1
    );
    text(&mut out, &data.x_label);
    out.push_str(",\"y\":");
    text(&mut out, &data.y_label);
    out.push_str(",\"ci\":");
    text(&mut out, &data.interval_label);
    let bar = data.kind == crate::config::ChartKind::Bar;
    if bar {
        out.push_str(",\"bar\":1");
    }
    if let Some(categories) = &data.categories {
        out.push_str(",\"cat\":[");
        for (i, c) in categories.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            text(&mut out, c);
        }
        out.push(']');
    }
    // A reference line is drawn through hundreds of points; a reader compares it with the
    // data at the data's x values, so those alone are kept (all of them on a chart with no
    // data series).
    let data_xs: Vec<f64> = (data.series.iter())
        .filter(|se| !se.reference)
        .flat_map(|se| se.points.iter().map(|p| p.0))
        .collect();
    let kept = |se: &crate::export::chart::Series, x: f64| {
        !se.reference || data_xs.is_empty() || data_xs.contains(&x)
    };
    out.push_str(",\"s\":[");
    for (i, se) in data.series.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"l\":");
        text(&mut out, &se.label);
        out.push_str(",\"c\":");
        text(
            &mut out,
            live.colors.get(i).map_or("#000000", String::as_str),
        );
        if se.reference {
            out.push_str(",\"r\":1");
        }
        out.push_str(",\"p\":[");
        let mut first = true;
        for (k, &(x, y)) in se.points.iter().enumerate() {
            if !kept(se, x) {
                continue;
            }
            if !std::mem::take(&mut first) {
                out.push(',');
            }
            out.push('[');
            number(&mut out, x);
            out.push(',');
            number(&mut out, y);
            out.push(',');
            at(&mut out, live.full.points.get(i).and_then(|p| *p.get(k)?));
            out.push(',');
            at(&mut out, live.narrow.points.get(i).and_then(|p| *p.get(k)?));
            // A bar chart draws no interval: it shows none either.
            let interval = (!bar).then(|| se.intervals.iter().find(|v| v.0 == x));
            if let Some(&(_, lo, hi)) = interval.flatten() {
                out.push(',');
                number(&mut out, lo);
                out.push(',');
                number(&mut out, hi);
            }
            out.push(']');
        }
        out.push_str("]}");
    }
    out.push_str("]}");
    out
}

/// The words and number marks `site.js` writes a chart's values with, once per page: the
/// page's decimal and group marks, and its words for what the script adds.
pub(crate) fn words(lc: Words<'_>) -> String {
    let mut out = String::from("{");
    let mut pair = |key: &str, value: &str| {
        if out.len() > 1 {
            out.push(',');
        }
        text(&mut out, key);
        out.push(':');
        text(&mut out, value);
    };
    pair("dec", &lc.locale.decimal_mark().to_string());
    pair("grp", &lc.locale.group_mark().to_string());
    pair("from", &crate::locale::GROUP_FROM_DIGITS.to_string());
    pair("series", say(lc, "series"));
    pair("all", say(lc, "every series"));
    pair("low", say(lc, "low end"));
    pair("high", say(lc, "high end"));
    pair(
        "keys",
        say(lc, "the chart's points: the arrow keys move between them"),
    );
    pair("csv", say(lc, "save its points as CSV"));
    out.push('}');
    out
}
