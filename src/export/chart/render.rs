//! From the SVG plotters draws to the files a run writes: an SVG whose text is outlines (no
//! font, no reference outside the file) and a PNG rasterized from that very SVG by resvg.
//!
//! Both go through one parser (usvg) with a font database holding only the embedded DejaVu
//! Sans: no system font is ever looked at, so the files are the same on every machine, and
//! the PNG is the SVG's twin pixel for pixel (a browser draws the same outlines).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use resvg::tiny_skia;
use resvg::usvg;

use super::base::{FONT, FONT_BYTES};

/// The options every parse uses: DejaVu Sans for every family the SVG names (it names
/// DejaVu Sans; `sans-serif` and a missing family resolve to it too), nothing read from disk.
fn options() -> usvg::Options<'static> {
    static DB: OnceLock<Arc<usvg::fontdb::Database>> = OnceLock::new();
    let fontdb = DB.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(FONT_BYTES.to_vec());
        db.set_sans_serif_family(FONT);
        db.set_serif_family(FONT);
        db.set_monospace_family(FONT);
        Arc::new(db)
    });
    usvg::Options {
        fontdb: Arc::clone(fontdb),
        font_family: FONT.to_string(),
        // No file next to the chart is ever read (plotters draws no images anyway).
        resources_dir: None,
        image_href_resolver: usvg::ImageHrefResolver {
            resolve_data: Box::new(|_, _, _| None),
            resolve_string: Box::new(|_, _| None),
        },
        ..usvg::Options::default()
    }
}

fn parse(svg: &str) -> anyhow::Result<usvg::Tree> {
    usvg::Tree::from_str(svg, &options()).map_err(|e| anyhow::anyhow!("chart SVG: {e}"))
}

/// Where glyph ids start: one glyph of DejaVu Sans has the same id (and shape) in every
/// chart, so SVGs inlined into one page may share them.
const GLYPH_ID: &str = "dejavu-sans-";

/// The SVG file: `source` (plotters' SVG) with each `<text>` element replaced by its glyphs,
/// laid out by usvg as resvg draws them: every glyph used is one `<path>` in `<defs>` (in
/// font units), each occurrence a `<use>` placed by a matrix. Everything else is plotters'
/// own markup. The text stays findable: the chart title as `<title>` and `aria-label`,
/// every line of text in `<desc>`.
pub(super) fn self_contained(source: &str, title: &str) -> anyhow::Result<String> {
    let Some(open) = source
        .find("<svg")
        .and_then(|i| source[i..].find('>').map(|j| i + j))
    else {
        anyhow::bail!("chart SVG: no <svg> element");
    };
    let root = &source[..open];
    let font = ab_glyph::FontRef::try_from_slice(FONT_BYTES)
        .map_err(|_| anyhow::anyhow!("the embedded chart font did not load"))?;
    let mut glyphs = Glyphs {
        font,
        outlines: BTreeMap::new(),
    };
    let mut lines = Vec::new();
    let mut smallest = f64::INFINITY;
    let mut body = String::with_capacity(source.len());
    let mut rest = &source[open + 1..];
    while let Some(i) = rest.find("<text") {
        crisp(&rest[..i], &mut body);
        let Some(len) = rest[i..].find("</text>") else {
            anyhow::bail!("chart SVG: a <text> element is not closed");
        };
        let end = i + len + "</text>".len();
        // Each element laid out alone, in a document of the same size (plotters draws
        // every text at the top level, so its coordinates are the chart's).
        smallest = smallest.min(font_size(&rest[i..end]).unwrap_or(f64::INFINITY));
        let tree = parse(&format!("{root}>{}</svg>", &rest[i..end]))?;
        glyphs.draw(tree.root(), 1.0, &mut body, &mut lines);
        rest = &rest[end..];
    }
    crisp(rest, &mut body);
    let mut defs = String::from("<defs>");
    for (id, d) in &glyphs.outlines {
        if let Some(d) = d {
            defs.push_str(&format!("<path id=\"{GLYPH_ID}{id}\" d=\"{d}\"/>"));
        }
    }
    defs.push_str("</defs>");
    let title = escape(title);
    let desc = escape(&lines.join("\n"));
    // The smallest text drawn, in the chart's pixels: a page showing the chart narrower
    // than its size knows how small its text then is (the site's browser test asks).
    let smallest = if smallest.is_finite() {
        format!(" data-smallest-text-px=\"{}\"", smallest.floor())
    } else {
        String::new()
    };
    Ok(format!(
        "{root} xmlns:xlink=\"http://www.w3.org/1999/xlink\" role=\"img\" aria-label=\"{title}\"{smallest}>\n<title>{title}</title>\n<desc>{desc}</desc>\n{defs}{body}"
    ))
}

/// A plotters `<text>` element's font size (its `font-size` attribute).
fn font_size(element: &str) -> Option<f64> {
    let at = element.find("font-size=\"")? + "font-size=\"".len();
    let rest = &element[at..];
    rest[..rest.find('"')?].trim_end_matches("px").parse().ok()
}

/// Plotters' markup copied, each axis-aligned `<line>` or `<polyline>` and each `<rect>` marked
/// `shape-rendering="crispEdges"`: a one-pixel axis, grid line or box border on whole
/// coordinates stays one sharp pixel in the PNG and in a browser, not two grey half pixels.
/// Slanted lines, curves, markers and glyphs keep their anti-aliasing.
fn crisp(markup: &str, out: &mut String) {
    const CRISP: &str = " shape-rendering=\"crispEdges\"";
    for line in markup.split_inclusive('\n') {
        let straight = if line.starts_with("<line ") {
            attr(line, "x1") == attr(line, "x2") || attr(line, "y1") == attr(line, "y2")
        } else if line.starts_with("<polyline ") {
            attr(line, "points").is_some_and(square)
        } else {
            line.starts_with("<rect ")
        };
        if straight {
            let tag = line.find(' ').unwrap_or(0);
            out.push_str(&line[..tag]);
            out.push_str(CRISP);
            out.push_str(&line[tag..]);
        } else {
            out.push_str(line);
        }
    }
}

/// Whether polyline `points` (`x,y x,y …`) run only across and up or down (an axis, a tick).
fn square(points: &str) -> bool {
    let pts: Vec<(&str, &str)> = points
        .split_whitespace()
        .filter_map(|p| p.split_once(','))
        .collect();
    pts.len() >= 2 && pts.windows(2).all(|w| w[0].0 == w[1].0 || w[0].1 == w[1].1)
}

/// The value of attribute `name` in one element's markup.
fn attr<'a>(element: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = element.find(&key)? + key.len();
    element[start..].split('"').next()
}

/// The glyph outlines a chart uses, by glyph id (`None`: a glyph with no outline, a space).
struct Glyphs<'f> {
    font: ab_glyph::FontRef<'f>,
    outlines: BTreeMap<u32, Option<String>>,
}

impl Glyphs<'_> {
    /// The glyphs of every text under `group` as `<use>`s (one `<g>` per span, in its fill),
    /// and the text lines they read.
    fn draw(
        &mut self,
        group: &usvg::Group,
        opacity: f32,
        out: &mut String,
        lines: &mut Vec<String>,
    ) {
        let opacity = opacity * group.opacity().get();
        for node in group.children() {
            match node {
                usvg::Node::Group(g) => self.draw(g, opacity, out, lines),
                usvg::Node::Text(text) => {
                    lines.extend(
                        text.chunks()
                            .iter()
                            .map(|c| c.text().trim().to_string())
                            .filter(|s| !s.is_empty()),
                    );
                    for span in text.layouted().iter().filter(|s| s.visible) {
                        // Plotters fills text and never strokes it.
                        let Some(fill) = &span.fill else { continue };
                        let usvg::Paint::Color(c) = fill.paint() else {
                            continue;
                        };
                        out.push_str(&format!(
                            "<g fill=\"#{:02X}{:02X}{:02X}\"",
                            c.red, c.green, c.blue
                        ));
                        let alpha = fill.opacity().get() * opacity;
                        if alpha < 1.0 {
                            out.push_str(&format!(" fill-opacity=\"{}\"", num(alpha, 4)));
                        }
                        out.push('>');
                        for glyph in &span.positioned_glyphs {
                            if !self.has_outline(glyph.id.0) {
                                continue;
                            }
                            let t = text.abs_transform().pre_concat(glyph.outline_transform());
                            out.push_str(&format!(
                                "<use xlink:href=\"#{GLYPH_ID}{}\" transform=\"matrix({} {} {} {} {} {})\"/>",
                                glyph.id.0,
                                num(t.sx, 7),
                                num(t.ky, 7),
                                num(t.kx, 7),
                                num(t.sy, 7),
                                num(t.tx, 2),
                                num(t.ty, 2),
                            ));
                        }
                        out.push_str("</g>");
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether glyph `id` draws anything (its outline, in font units, kept for `<defs>`).
    fn has_outline(&mut self, id: u32) -> bool {
        use ab_glyph::Font;
        let font = &self.font;
        self.outlines
            .entry(id)
            .or_insert_with(|| {
                let id = u16::try_from(id).ok()?;
                font.outline(ab_glyph::GlyphId(id)).map(|o| path_data(&o))
            })
            .is_some()
    }
}

/// An outline as SVG path data, in font units (y up, as the font has it: each `<use>`
/// matrix flips it), to a tenth of a unit (1/20480 em).
fn path_data(outline: &ab_glyph::Outline) -> String {
    use ab_glyph::OutlineCurve;
    let p = |p: ab_glyph::Point| format!("{} {}", num(p.x, 1), num(p.y, 1));
    let mut d = String::new();
    let mut at: Option<ab_glyph::Point> = None;
    for curve in &outline.curves {
        let start = match curve {
            OutlineCurve::Line(a, _) | OutlineCurve::Quad(a, _, _) | OutlineCurve::Cubic(a, ..) => {
                *a
            }
        };
        if at != Some(start) {
            if at.is_some() {
                d.push('Z');
            }
            d.push_str(&format!("M{}", p(start)));
        }
        let end = match curve {
            OutlineCurve::Line(_, b) => {
                d.push_str(&format!("L{}", p(*b)));
                *b
            }
            OutlineCurve::Quad(_, c, b) => {
                d.push_str(&format!("Q{} {}", p(*c), p(*b)));
                *b
            }
            OutlineCurve::Cubic(_, c1, c2, b) => {
                d.push_str(&format!("C{} {} {}", p(*c1), p(*c2), p(*b)));
                *b
            }
        };
        at = Some(end);
    }
    if at.is_some() {
        d.push('Z');
    }
    d
}

/// `v` to `decimals` places, as short as it reads (`12`, `0.5`, never `-0`).
fn num(v: f32, decimals: i32) -> String {
    let f = 10f64.powi(decimals);
    let r = (f64::from(v) * f).round() / f;
    if r == 0.0 {
        "0".to_string()
    } else {
        format!("{r}")
    }
}

/// `svg` with every character XML 1.0 forbids (control characters but tab and line
/// breaks, U+FFFE, U+FFFF) made a space, as the chart layout already does with the text it
/// fits (`layout::clean`): plotters writes tick labels as they are, and a category label
/// holding `\u0007` would make the file unreadable.
pub(super) fn xml_safe(svg: String) -> String {
    if svg.chars().all(xml_char) {
        return svg;
    }
    svg.chars()
        .map(|c| if xml_char(c) { c } else { ' ' })
        .collect()
}

fn xml_char(c: char) -> bool {
    !(c.is_control() && !matches!(c, '\t' | '\n' | '\r') || matches!(c, '\u{FFFE}' | '\u{FFFF}'))
}

/// Text for XML content and attribute values (a character XML forbids becomes a space, and
/// so does a no-break space: it only keeps a drawn title from wrapping, and the text is
/// searched as written).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            c if !xml_char(c) || c == '\u{a0}' => out.push(' '),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The pixels of `svg` at `scale` PNG pixels per SVG pixel, on white (every pixel opaque).
pub(super) fn pixmap(svg: &str, scale: f64) -> anyhow::Result<tiny_skia::Pixmap> {
    let tree = parse(svg)?;
    let size = tree.size();
    let (w, h) = (
        (f64::from(size.width()) * scale).round() as u32,
        (f64::from(size.height()) * scale).round() as u32,
    );
    let mut pixmap = tiny_skia::Pixmap::new(w, h)
        .ok_or_else(|| anyhow::anyhow!("chart PNG: {w}×{h} pixels cannot be drawn"))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    // Each side scaled to its whole number of pixels exactly.
    let transform =
        tiny_skia::Transform::from_scale(w as f32 / size.width(), h as f32 / size.height());
    resvg::render(&tree, transform, &mut pixmap.as_mut());
    Ok(pixmap)
}

/// RGB rows, top first, of an opaque pixmap (its alpha dropped: premultiplied by 255 is the
/// colour itself).
pub(super) fn rgb(pixmap: &tiny_skia::Pixmap) -> Vec<u8> {
    pixmap
        .data()
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect()
}

/// The PNG file of an opaque pixmap: 8-bit RGB (no alpha channel, a quarter smaller than
/// RGBA), converted a row at a time.
pub(super) fn png(pixmap: &tiny_skia::Pixmap) -> anyhow::Result<Vec<u8>> {
    use std::io::Write;
    let (w, h) = (pixmap.width(), pixmap.height());
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    {
        let mut stream = writer.stream_writer()?;
        let mut row = Vec::with_capacity(w as usize * 3);
        for line in pixmap.data().chunks_exact(w as usize * 4) {
            row.clear();
            row.extend(line.chunks_exact(4).flat_map(|p| [p[0], p[1], p[2]]));
            stream.write_all(&row)?;
        }
        stream.finish()?;
    }
    writer.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text as plotters writes it: a top-anchored title with Turkish capitals and dots, an
    /// end-anchored tick, a rotated axis title, a coloured half-transparent legend line,
    /// and an empty tick label (plotters writes those too).
    const SOURCE: &str = r##"<svg width="320" height="160" viewBox="0 0 320 160" xmlns="http://www.w3.org/2000/svg">
<rect x="0" y="0" width="320" height="160" opacity="1" fill="#FFFFFF" stroke="none"/>
<text x="160" y="8" dy="0.76em" text-anchor="middle" font-family="DejaVu Sans" font-size="22.5" opacity="1" fill="#000000">
Şığ İz &amp; bekliyor
</text>
<text x="300" y="80" dy="0.5ex" text-anchor="end" font-family="DejaVu Sans" font-size="13" opacity="1" fill="#000000">
1.000,5
</text>
<text x="20" y="100" dy="0.5ex" text-anchor="middle" font-family="DejaVu Sans" font-size="15" opacity="1" fill="#0072B2" transform="rotate(270, 20, 100)">
yazma + bırakma
</text>
<text x="60" y="140" dy="0.5ex" text-anchor="start" font-family="DejaVu Sans" font-size="12" opacity="0.5" fill="#D55E00">
zxzx
</text>
<text x="90" y="120" dy="0.5ex" text-anchor="start" font-family="DejaVu Sans" font-size="12" opacity="1" fill="#000000">

</text>
<polyline fill="none" opacity="1" stroke="#000000" stroke-width="1" points="77,73 77,150 "/>
<line opacity="1" stroke="#000000" stroke-width="1" x1="80" y1="150" x2="300" y2="40"/>
</svg>
"##;

    fn rgba(svg: &str, scale: f64) -> Vec<u8> {
        pixmap(svg, scale).unwrap().data().to_vec()
    }

    #[test]
    fn glyphs_land_where_resvg_draws_the_text() {
        // resvg drawing plotters' <text> (with the embedded font) and drawing the file's
        // glyph outlines, at scale 1 and 3: they differ only by the file's rounding (1/100
        // px): far less than the same text drawn a tenth of a pixel to the right differs.
        // (tiny-skia anti-aliases on a 4 × 4 grid, so a rounded edge that crosses a grid
        // line moves a pixel by 16 levels a subsample: a few pixels move by up to 64.)
        let text: String = SOURCE
            .split_inclusive('\n')
            .filter(|l| !l.starts_with("<polyline") && !l.starts_with("<line"))
            .collect();
        let file = self_contained(&text, "t").unwrap();
        assert!(!file.contains("<text"));
        let shifted = text
            .replacen("<text", "<g transform=\"translate(0.1 0)\"><text", 1)
            .replace("</svg>", "</g></svg>");
        let diff = |a: &[u8], b: &[u8]| -> (u64, u8) {
            let total = a
                .iter()
                .zip(b)
                .map(|(x, y)| u64::from(x.abs_diff(*y)))
                .sum();
            let worst = a
                .iter()
                .zip(b)
                .map(|(x, y)| x.abs_diff(*y))
                .max()
                .unwrap_or(0);
            (total, worst)
        };
        for scale in [1.0, 3.0] {
            let drawn = rgba(&text, scale);
            let (total, worst) = diff(&drawn, &rgba(&file, scale));
            let (moved, _) = diff(&drawn, &rgba(&shifted, scale));
            assert!(worst <= 64, "scale {scale}: a channel differs by {worst}");
            assert!(
                total * 5 < moved,
                "scale {scale}: {total} levels differ, a tenth of a pixel moves the title by {moved}"
            );
            // Not trivially equal: the text is really drawn.
            let white = rgba(
                r##"<svg width="320" height="160" xmlns="http://www.w3.org/2000/svg"/>"##,
                scale,
            );
            let (ink, _) = diff(&white, &drawn);
            assert!(ink > 100_000, "{ink}");
        }
    }

    #[test]
    fn the_file_keeps_its_text_findable_and_refers_only_to_itself() {
        let file = self_contained(SOURCE, "Şığ <İz> & \"b\"").unwrap();
        // The smallest text of the four (22.5, 13, 15 and 12 pixels) is 12: a page that
        // shows the chart at half its size knows its text is then 6 pixels.
        assert!(file.starts_with(
            "<svg width=\"320\" height=\"160\" viewBox=\"0 0 320 160\" xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" role=\"img\" aria-label=\"Şığ &lt;İz&gt; &amp; &quot;b&quot;\" data-smallest-text-px=\"12\">\n<title>Şığ &lt;İz&gt; &amp; &quot;b&quot;</title>\n"
        ));
        // Every text line in drawing order; the empty one is not a line.
        assert!(
            file.contains("<desc>Şığ İz &amp; bekliyor\n1.000,5\nyazma + bırakma\nzxzx</desc>")
        );
        // Glyphs: one definition per glyph, each used where it occurs. `zxzx` and `yazma`
        // share `z`; the half-transparent text keeps its opacity.
        let z = file.matches("<path id=\"dejavu-sans-").count();
        let distinct: std::collections::BTreeSet<char> = "ŞığİzbekliyorÜ"
            .chars()
            .filter(|c| *c != 'Ü')
            .chain("&1.000,5yazma+bırakmazx".chars())
            .collect();
        assert_eq!(z, distinct.len(), "{distinct:?}");
        assert!(file.contains("<g fill=\"#D55E00\" fill-opacity=\"0.5\">"));
        assert!(file.contains("<g fill=\"#0072B2\">"));
    }

    #[test]
    fn straight_lines_and_boxes_are_crisp_and_slanted_lines_smooth() {
        let file = self_contained(SOURCE, "t").unwrap();
        assert!(file.contains("<polyline shape-rendering=\"crispEdges\" fill=\"none\""));
        assert!(file.contains("<rect shape-rendering=\"crispEdges\" x=\"0\""));
        assert!(
            file.contains("<line opacity=\"1\" stroke=\"#000000\" stroke-width=\"1\" x1=\"80\"")
        );
        // The one-pixel axis at x = 77 (76.5 to 77.5) is one black column beside white
        // ones, not two grey ones.
        let p = pixmap(&file, 1.0).unwrap();
        let row: Vec<u8> = (74..81).map(|x| p.data()[(100 * 320 + x) * 4]).collect();
        assert_eq!(row.iter().filter(|&&v| v == 0).count(), 1, "{row:?}");
        assert_eq!(row.iter().filter(|&&v| v == 255).count(), 6, "{row:?}");
    }

    #[test]
    fn pngs_are_rgb_and_the_same_every_time() {
        let file = self_contained(SOURCE, "t").unwrap();
        let a = png(&pixmap(&file, 2.0).unwrap()).unwrap();
        let b = png(&pixmap(&self_contained(SOURCE, "t").unwrap(), 2.0).unwrap()).unwrap();
        assert_eq!(a, b);
        // IHDR: 640 × 320, bit depth 8, colour type 2 (RGB).
        assert_eq!(&a[16..26], &[0, 0, 2, 128, 0, 0, 1, 64, 8, 2]);
    }

    #[test]
    fn characters_xml_forbids_become_spaces() {
        let source = xml_safe(SOURCE.replace("1.000,5", "1\u{7}0\u{FFFF}5"));
        let file = self_contained(&source, "a\u{1b}b").unwrap();
        assert!(file.contains("<title>a b</title>"));
        assert!(file.contains("\n1 0 5\n"), "{file}");
        // Text without them is left as it is.
        assert_eq!(xml_safe(SOURCE.to_string()), SOURCE);
    }

    #[test]
    fn the_font_database_holds_the_embedded_font_alone() {
        // No system font is ever loaded: the output cannot depend on the machine.
        let db = &options().fontdb;
        assert_eq!(db.len(), 1);
        let face = db.faces().next().unwrap();
        assert_eq!(face.families[0].0, FONT);
    }

    #[test]
    fn numbers_are_short_and_never_negative_zero() {
        assert_eq!(num(12.0, 2), "12");
        assert_eq!(num(0.5, 2), "0.5");
        assert_eq!(num(-0.001, 2), "0");
        assert_eq!(num(398.584, 2), "398.58");
        assert_eq!(num(0.011_025_73, 7), "0.0110257");
    }
}
