//! A chart coordsim drew, made fit to write into a page as it is: checked to hold only what
//! a chart is drawn with (no script, no event attribute, no reference outside itself), its
//! ids given a prefix so that two charts (or two fragments) on one page never share one.

/// A chart coordsim drew, checked to hold only what a chart is drawn with (no script, no
/// event attribute, no reference outside itself) and its ids prefixed: safe to write into a
/// page as it is.
pub(crate) struct InlineSvg(String);

impl InlineSvg {
    /// Its text.
    pub(crate) fn text(&self) -> &str {
        &self.0
    }
}

/// The elements a chart's SVG is drawn with.
const ELEMENTS: &[&str] = &[
    "svg", "g", "defs", "title", "desc", "path", "use", "line", "polyline", "polygon", "rect",
    "circle", "text",
];

/// The attributes it uses.
const ATTRIBUTES: &[&str] = &[
    "width",
    "height",
    "viewBox",
    "xmlns",
    "xmlns:xlink",
    "role",
    "aria-label",
    "data-smallest-text-px",
    "id",
    "d",
    "fill",
    "stroke",
    "stroke-width",
    "opacity",
    "shape-rendering",
    "transform",
    "points",
    "x",
    "y",
    "x1",
    "y1",
    "x2",
    "y2",
    "cx",
    "cy",
    "r",
    "xlink:href",
    "href",
    "font-family",
    "font-size",
    "text-anchor",
    "dominant-baseline",
];

/// `svg` with its ids (and the references to them) after `prefix`, its root element with
/// `root_attrs` (`class="…"`) and, when it fits its box (`fit`), `width="100%"` in place of
/// its size (its height then follows its `viewBox`); `None` when it holds anything [`ELEMENTS`] and [`ATTRIBUTES`] do not
/// list, a reference that is not to an id of its own, or markup that is not plain.
pub(crate) fn inline_svg(
    svg: &str,
    prefix: &str,
    root_attrs: &'static str,
    fit: bool,
) -> Option<InlineSvg> {
    let start = svg.find("<svg")?;
    let mut out = String::with_capacity(svg.len() + 64);
    let mut rest = &svg[start..];
    let mut root = true;
    while let Some(open) = rest.find('<') {
        // Text between elements: no markup, references or entities beyond XML's own.
        let text = &rest[..open];
        if text.contains('>') {
            return None;
        }
        out.push_str(text);
        rest = &rest[open..];
        let end = rest.find('>')?;
        let tag = &rest[1..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            if !ELEMENTS.contains(&name.trim()) {
                return None;
            }
            out.push('<');
            out.push_str(tag);
            out.push('>');
            continue;
        }
        let (body, void) = match tag.strip_suffix('/') {
            Some(b) => (b, true),
            None => (tag, false),
        };
        let name_end = body.find(char::is_whitespace).unwrap_or(body.len());
        let name = &body[..name_end];
        if !ELEMENTS.contains(&name) {
            return None;
        }
        out.push('<');
        out.push_str(name);
        let mut attrs = body[name_end..].trim_start();
        if root {
            out.push(' ');
            out.push_str(root_attrs);
        }
        while !attrs.is_empty() {
            let eq = attrs.find("=\"")?;
            let key = attrs[..eq].trim();
            let value_end = attrs[eq + 2..].find('"')? + eq + 2;
            let value = &attrs[eq + 2..value_end];
            attrs = attrs[value_end + 1..].trim_start();
            if !ATTRIBUTES.contains(&key) || value.contains('<') {
                return None;
            }
            let value = match key {
                "id" => format!("{prefix}{value}"),
                "href" | "xlink:href" => format!("#{prefix}{}", value.strip_prefix('#')?),
                "width" | "height" if root && fit => continue,
                _ => value.to_string(),
            };
            out.push_str(&format!(" {key}=\"{value}\""));
        }
        if root && fit {
            out.push_str(" width=\"100%\"");
        }
        root = false;
        out.push_str(if void { "/>" } else { ">" });
    }
    if rest.trim().contains(['<', '>']) {
        return None;
    }
    Some(InlineSvg(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_charts_ids_are_prefixed_and_anything_else_is_refused() {
        let svg = "<svg width=\"10\" height=\"5\" viewBox=\"0 0 10 5\" xmlns=\"http://www.w3.org/2000/svg\">\n<defs><path id=\"g1\" d=\"M0 0\"/></defs><use xlink:href=\"#g1\" transform=\"scale(2)\"/><title>a &lt; b</title></svg>\n";
        let fit = inline_svg(svg, "x-", "class=\"cs-full\"", true).unwrap();
        assert_eq!(
            fit.text(),
            "<svg class=\"cs-full\" viewBox=\"0 0 10 5\" xmlns=\"http://www.w3.org/2000/svg\" width=\"100%\">\n<defs><path id=\"x-g1\" d=\"M0 0\"/></defs><use xlink:href=\"#x-g1\" transform=\"scale(2)\"/><title>a &lt; b</title></svg>"
        );
        let kept = inline_svg(svg, "x-", "class=\"cs-full\"", false).unwrap();
        assert!(
            kept.text()
                .starts_with("<svg class=\"cs-full\" width=\"10\" height=\"5\"")
        );
        for bad in [
            "<svg><script>alert(1)</script></svg>",
            "<svg onload=\"alert(1)\"></svg>",
            "<svg><use xlink:href=\"other.svg#g\"/></svg>",
            "<svg><foreignObject></foreignObject></svg>",
            "<svg><rect x=\"1\" y='2'/></svg>",
            "<svg><title>a > b</title></svg>",
        ] {
            assert!(
                inline_svg(bad, "x-", "class=\"c\"", true).is_none(),
                "{bad}"
            );
        }
    }
}
