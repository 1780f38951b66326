//! Markdown to HTML through `pulldown-cmark`'s events, written with [`Html`], so the text of
//! a lesson or a `table.md` is escaped by construction.
//!
//! Raw HTML in the Markdown never passes through: an HTML comment is dropped (a lesson's
//! declarations are comments), any other tag shows as the text it is. Links and images go
//! through [`Hooks`], which say where a link points in the site (or that it points nowhere
//! the site has, so it shows as text) and which copy of an image to show. A lesson's marked
//! regions reach the renderer as placeholders ([`inline_open`], [`INLINE_CLOSE`],
//! [`block_open`], [`block_close`]) that [`Hooks`] turn into the marked elements.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::html::Html;

/// Where an image of the Markdown is shown from.
pub(crate) enum Image {
    /// A file of the site (relative URL), and its phone rendering when it is a chart that
    /// has one.
    Site(String, Option<String>),
    /// A file of the site as [`Image::Site`], in the hook's markup: what goes before the
    /// image, its URL and phone rendering, what goes after (a lesson's chart block: its
    /// figure, with the links that save it).
    Figure(Html, String, Option<String>, Html),
    /// Written where it is, as the hook built it (a lesson's fragment: a chart drawn
    /// inline, or an image held in the page).
    Inline(Html),
    /// Held in the page as a `data:` URL: its media type and bytes (a fragment's image).
    Data(&'static str, Vec<u8>),
    /// Not shown: why (the alt text and this are written instead).
    Missing(String),
}

/// What a page's Markdown needs from its page: links, images and marked regions.
pub(crate) trait Hooks {
    /// The id an element of the page's own (a heading) is written with: `id` itself, or
    /// with a prefix where several pages' ids share one document.
    fn id(&self, id: &str) -> String {
        id.to_string()
    }
    /// The URL a link goes to in the site, or `None` to show its text alone.
    fn link(&self, dest: &str) -> Option<String>;
    /// Where an image is shown from.
    fn image(&self, src: &str) -> Image;
    /// Writes the opening of inline region `i`.
    fn open_inline(&self, _h: &mut Html, _i: usize) {}
    /// Writes the end of inline region `i` (its provenance); `in_link`: inside a link, where
    /// another link may not go.
    fn close_inline(&self, _h: &mut Html, _i: usize, _in_link: bool) {}
    /// Writes the opening of block region `i`.
    fn open_block(&self, _h: &mut Html, _i: usize) {}
    /// Writes the end of block region `i`.
    fn close_block(&self, _h: &mut Html, _i: usize) {}
}

/// A table's Markdown with no links or images of its own: an image is shown as its alt
/// text and this note (in the page's words).
pub(crate) struct Plain<'a>(pub &'a str);

impl Hooks for Plain<'_> {
    fn link(&self, _dest: &str) -> Option<String> {
        None
    }
    fn image(&self, _src: &str) -> Image {
        Image::Missing(self.0.to_string())
    }
}

/// Most inline regions one page marks: the characters of two private-use planes.
pub(crate) const MAX_INLINE_REGIONS: usize = 2 * PLANE;
const PLANE: usize = 0xFFFE;

/// The placeholder that opens inline region `i` (`i < MAX_INLINE_REGIONS`): one character,
/// which no Markdown rule splits.
pub(crate) fn inline_open(i: usize) -> char {
    let code = if i < PLANE {
        0xF0000 + i
    } else {
        0x100000 + (i - PLANE)
    };
    char::from_u32(code as u32).unwrap_or(INLINE_CLOSE)
}

/// The placeholder that closes the open inline region.
pub(crate) const INLINE_CLOSE: char = '\u{E000}';

fn inline_index(c: char) -> Option<usize> {
    let code = c as usize;
    match code {
        0xF0000..0xFFFFE => Some(code - 0xF0000),
        0x100000..0x10FFFE => Some(code - 0x100000 + PLANE),
        _ => None,
    }
}

/// Whether `c` is one of the placeholders (a lesson's own such characters are replaced
/// before its regions are marked).
pub(crate) fn is_placeholder(c: char) -> bool {
    c == INLINE_CLOSE || inline_index(c).is_some()
}

/// The line that opens block region `i` (an HTML comment on a line of its own).
pub(crate) fn block_open(i: usize) -> String {
    format!("<!--coordsim-site-open-{i}-->")
}

/// The line that closes block region `i`.
pub(crate) fn block_close(i: usize) -> String {
    format!("<!--coordsim-site-close-{i}-->")
}

fn parse_block_token(html: &str) -> Option<(bool, usize)> {
    let body = html
        .trim()
        .strip_prefix("<!--coordsim-site-")?
        .strip_suffix("-->")?;
    if let Some(i) = body.strip_prefix("open-") {
        return Some((true, i.parse().ok()?));
    }
    Some((false, body.strip_prefix("close-")?.parse().ok()?))
}

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH
}

/// GitHub's heading anchors: lower case, letters, digits, `-` and `_` kept, spaces as `-`,
/// the rest dropped; a repeated anchor gets `-1`, `-2`, ….
fn slugs(markdown: &str) -> Vec<String> {
    let mut texts: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    for event in Parser::new_ext(markdown, options()) {
        match event {
            Event::Start(Tag::Heading { .. }) => current = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => texts.extend(current.take()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(c) = current.as_mut() {
                    c.push_str(&t);
                }
            }
            _ => {}
        }
    }
    let mut used: Vec<String> = Vec::new();
    texts
        .into_iter()
        .map(|t| {
            let base: String = t
                .chars()
                .filter(|c| !is_placeholder(*c))
                .flat_map(char::to_lowercase)
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect();
            let mut slug = base.clone();
            let mut n = 0;
            while used.contains(&slug) {
                n += 1;
                slug = format!("{base}-{n}");
            }
            used.push(slug.clone());
            slug
        })
        .collect()
}

/// What the renderer is inside.
#[derive(Default)]
struct State {
    /// The open inline region.
    region: Option<usize>,
    /// Open links (text only when the hook gave no URL).
    links: Vec<bool>,
    /// An image being read: its source and alt text so far.
    image: Option<(String, String)>,
    aligns: Vec<Alignment>,
    in_head: bool,
    cell: usize,
    heading: usize,
    in_code_block: bool,
}

/// Renders `markdown` as HTML.
pub(crate) fn render(markdown: &str, hooks: &dyn Hooks) -> Html {
    let slugs = slugs(markdown);
    let mut h = Html::new();
    let mut s = State::default();
    for event in Parser::new_ext(markdown, options()) {
        if let Some((_, alt)) = s.image.as_mut() {
            match event {
                Event::Text(t) | Event::Code(t) => {
                    alt.extend(t.chars().filter(|c| !is_placeholder(*c)));
                    continue;
                }
                Event::End(TagEnd::Image) => {}
                _ => continue,
            }
        }
        match event {
            Event::Start(tag) => start(&mut h, &mut s, tag, hooks, &slugs),
            Event::End(tag) => end(&mut h, &mut s, tag, hooks),
            Event::Text(t) if s.in_code_block => {
                h.text(&t.replace(is_placeholder, ""));
            }
            Event::Text(t) => text(&mut h, &mut s, &t, hooks),
            Event::Code(t) => {
                h.open("code", &[]);
                text(&mut h, &mut s, &t, hooks);
                h.close("code");
            }
            Event::Html(t) | Event::InlineHtml(t) => match parse_block_token(&t) {
                Some((true, i)) => hooks.open_block(&mut h, i),
                Some((false, i)) => hooks.close_block(&mut h, i),
                // A comment is invisible, as on every Markdown host; other markup is text.
                None if t.trim_start().starts_with("<!--") => {}
                None => {
                    h.text(&t);
                }
            },
            Event::SoftBreak => {
                h.newline();
            }
            Event::HardBreak => {
                h.void("br", &[]);
            }
            Event::Rule => {
                h.void("hr", &[]);
            }
            // Not enabled by these options; shown as text should a later version send them.
            Event::FootnoteReference(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                h.text(&t);
            }
            Event::TaskListMarker(done) => {
                h.text(if done { "[x] " } else { "[ ] " });
            }
        }
    }
    close_region(&mut h, &mut s, hooks);
    h
}

/// Text with the placeholders of inline regions turned into their elements.
fn text(h: &mut Html, s: &mut State, t: &str, hooks: &dyn Hooks) {
    let mut plain = String::new();
    for c in t.chars() {
        if let Some(i) = inline_index(c) {
            h.text(&plain);
            plain.clear();
            close_region(h, s, hooks);
            hooks.open_inline(h, i);
            s.region = Some(i);
        } else if c == INLINE_CLOSE {
            h.text(&plain);
            plain.clear();
            close_region(h, s, hooks);
        } else {
            plain.push(c);
        }
    }
    h.text(&plain);
}

/// Ends the open inline region, if any (also at the end of its block, so the elements
/// always nest).
fn close_region(h: &mut Html, s: &mut State, hooks: &dyn Hooks) {
    if let Some(i) = s.region.take() {
        hooks.close_inline(h, i, s.links.iter().any(|l| *l));
    }
}

fn heading_tag(level: HeadingLevel) -> &'static str {
    match level {
        HeadingLevel::H1 => "h1",
        HeadingLevel::H2 => "h2",
        HeadingLevel::H3 => "h3",
        HeadingLevel::H4 => "h4",
        HeadingLevel::H5 => "h5",
        HeadingLevel::H6 => "h6",
    }
}

fn align_class(a: Option<&Alignment>) -> &'static str {
    match a {
        Some(Alignment::Left) => "left",
        Some(Alignment::Right) => "num",
        Some(Alignment::Center) => "center",
        _ => "",
    }
}

fn start(h: &mut Html, s: &mut State, tag: Tag<'_>, hooks: &dyn Hooks, slugs: &[String]) {
    match tag {
        Tag::Paragraph => {
            h.open("p", &[]);
        }
        Tag::Heading { level, .. } => {
            let id = hooks.id(slugs.get(s.heading).map_or("", String::as_str));
            s.heading += 1;
            h.open(heading_tag(level), &[("id", &id)]);
        }
        Tag::BlockQuote(_) => {
            h.open("blockquote", &[]);
        }
        Tag::CodeBlock(kind) => {
            s.in_code_block = true;
            h.open("pre", &[]);
            match kind {
                CodeBlockKind::Fenced(lang) if !lang.trim().is_empty() => {
                    let class = format!(
                        "language-{}",
                        lang.split_whitespace().next().unwrap_or_default()
                    );
                    h.open("code", &[("class", &class)]);
                }
                _ => {
                    h.open("code", &[]);
                }
            }
        }
        Tag::List(Some(first)) => {
            let start = first.to_string();
            h.open("ol", &[("start", &start)]);
        }
        Tag::List(None) => {
            h.open("ul", &[]);
        }
        Tag::Item => {
            h.open("li", &[]);
        }
        Tag::Table(aligns) => {
            s.aligns = aligns;
            h.open("div", &[("class", "table-wrap")]).open("table", &[]);
        }
        Tag::TableHead => {
            s.in_head = true;
            s.cell = 0;
            h.open("thead", &[]).open("tr", &[]);
        }
        Tag::TableRow => {
            s.cell = 0;
            h.open("tr", &[]);
        }
        Tag::TableCell => {
            let class = align_class(s.aligns.get(s.cell));
            s.cell += 1;
            let tag = if s.in_head { "th" } else { "td" };
            if class.is_empty() {
                h.open(tag, &[]);
            } else {
                h.open(tag, &[("class", class)]);
            }
        }
        Tag::Emphasis => {
            h.open("em", &[]);
        }
        Tag::Strong => {
            h.open("strong", &[]);
        }
        Tag::Strikethrough => {
            h.open("del", &[]);
        }
        Tag::Link {
            dest_url, title, ..
        } => match hooks.link(&dest_url) {
            Some(url) => {
                s.links.push(true);
                h.open("a", &[("href", &url), ("title", &title)]);
            }
            None => s.links.push(false),
        },
        Tag::Image { dest_url, .. } => {
            s.image = Some((dest_url.to_string(), String::new()));
        }
        _ => {}
    }
}

fn end(h: &mut Html, s: &mut State, tag: TagEnd, hooks: &dyn Hooks) {
    match tag {
        TagEnd::Paragraph => {
            close_region(h, s, hooks);
            h.close("p").newline();
        }
        TagEnd::Heading(level) => {
            close_region(h, s, hooks);
            h.close(heading_tag(level)).newline();
        }
        TagEnd::BlockQuote(_) => {
            h.close("blockquote").newline();
        }
        TagEnd::CodeBlock => {
            s.in_code_block = false;
            h.close("code").close("pre").newline();
        }
        TagEnd::List(ordered) => {
            h.close(if ordered { "ol" } else { "ul" }).newline();
        }
        TagEnd::Item => {
            close_region(h, s, hooks);
            h.close("li").newline();
        }
        TagEnd::Table => {
            h.close("tbody").close("table").close("div").newline();
        }
        TagEnd::TableHead => {
            s.in_head = false;
            h.close("tr").close("thead").open("tbody", &[]).newline();
        }
        TagEnd::TableRow => {
            h.close("tr").newline();
        }
        TagEnd::TableCell => {
            close_region(h, s, hooks);
            h.close(if s.in_head { "th" } else { "td" });
        }
        TagEnd::Emphasis => {
            h.close("em");
        }
        TagEnd::Strong => {
            h.close("strong");
        }
        TagEnd::Strikethrough => {
            h.close("del");
        }
        TagEnd::Link if s.links.pop() == Some(true) => {
            h.close("a");
        }
        TagEnd::Image => {
            if let Some((src, alt)) = s.image.take() {
                image(h, hooks, &src, &alt);
            }
        }
        _ => {}
    }
}

fn image(h: &mut Html, hooks: &dyn Hooks, src: &str, alt: &str) {
    match hooks.image(src) {
        Image::Site(url, narrow) => {
            h.chart_image(&url, narrow.as_deref(), alt);
        }
        Image::Figure(before, url, narrow, after) => {
            h.append(before);
            h.chart_image(&url, narrow.as_deref(), alt);
            h.append(after);
        }
        Image::Inline(markup) => {
            h.append(markup);
        }
        Image::Data(mime, bytes) => {
            h.data_image(mime, &bytes, alt);
        }
        Image::Missing(why) => {
            h.with("span", &[("class", "missing-image")], |h| {
                h.text(&format!("[{alt}] ({why})"));
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Links;
    impl Hooks for Links {
        fn link(&self, dest: &str) -> Option<String> {
            dest.starts_with("http").then(|| dest.to_string())
        }
        fn image(&self, src: &str) -> Image {
            Image::Site(format!("copy-{src}"), None)
        }
        fn open_inline(&self, h: &mut Html, i: usize) {
            h.open("mark", &[("id", &format!("r{i}"))]);
        }
        fn close_inline(&self, h: &mut Html, _i: usize, in_link: bool) {
            h.close("mark").text(if in_link { "(in link)" } else { "" });
        }
        fn open_block(&self, h: &mut Html, i: usize) {
            h.open("div", &[("id", &format!("b{i}"))]);
        }
        fn close_block(&self, h: &mut Html, _i: usize) {
            h.close("div");
        }
    }

    #[test]
    fn raw_html_is_text_and_comments_vanish() {
        let out = render(
            "# T <b>x</b>\n\n<script>alert(1)</script>\n\na <img src=x onerror=alert(1)> b <!-- note -->\n",
            &Links,
        )
        .finish();
        assert!(!out.contains("<script") && !out.contains("<img"), "{out}");
        assert!(
            out.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{out}"
        );
        assert!(out.contains("&lt;b&gt;x&lt;/b&gt;"), "{out}");
        assert!(!out.contains("note"), "{out}");
    }

    #[test]
    fn links_go_where_the_hooks_say_and_unsafe_ones_are_text() {
        let out = render(
            "[web](https://e.org) [js](javascript:alert(1)) [doc](../docs/x.md)\n",
            &Links,
        )
        .finish();
        assert!(
            out.contains("<a href=\"https://e.org\" title=\"\">web</a>"),
            "{out}"
        );
        assert!(!out.contains("javascript"), "{out}");
        assert!(out.contains(" js ") && out.contains(" doc"), "{out}");
    }

    #[test]
    fn regions_open_and_close_where_their_placeholders_are() {
        let md = format!(
            "Wait {}206,5 ms{} here, [{}in link{}](https://e.org).\n\n{}\n| a |\n|---:|\n| {}1 |\n{}\n\n![alt {}x{}](img/c.svg)\n",
            inline_open(0),
            INLINE_CLOSE,
            inline_open(1),
            INLINE_CLOSE,
            block_open(2),
            inline_open(3),
            block_close(2),
            inline_open(4),
            INLINE_CLOSE,
        );
        let out = render(&md, &Links).finish();
        assert!(
            out.contains("Wait <mark id=\"r0\">206,5 ms</mark> here"),
            "{out}"
        );
        assert!(
            out.contains("<mark id=\"r1\">in link</mark>(in link)"),
            "{out}"
        );
        // The block wraps the table; region 3, never closed, ends with its cell.
        assert!(
            out.contains("<div id=\"b2\"><div class=\"table-wrap\"><table>"),
            "{out}"
        );
        assert!(
            out.contains("<td class=\"num\"><mark id=\"r3\">1</mark></td>"),
            "{out}"
        );
        assert!(out.contains("</table></div>\n</div>"), "{out}");
        // An image's alt text keeps no placeholder.
        assert!(
            out.contains("<img src=\"copy-img/c.svg\" alt=\"alt x\">"),
            "{out}"
        );
    }

    #[test]
    fn headings_get_github_anchors() {
        let out = render(
            "# Ders 003: Dayanıklı\n\n## 1. Oku\n\n## 1. Oku\n",
            &Plain(""),
        )
        .finish();
        assert!(out.contains("<h1 id=\"ders-003-dayanıklı\">"), "{out}");
        assert!(
            out.contains("<h2 id=\"1-oku\">") && out.contains("<h2 id=\"1-oku-1\">"),
            "{out}"
        );
    }

    #[test]
    fn placeholders_round_trip() {
        for i in [0, 1, PLANE - 1, PLANE, MAX_INLINE_REGIONS - 1] {
            assert_eq!(inline_index(inline_open(i)), Some(i));
        }
        assert_eq!(inline_index(INLINE_CLOSE), None);
        assert_eq!(parse_block_token(&block_open(7)), Some((true, 7)));
        assert_eq!(parse_block_token(&block_close(7)), Some((false, 7)));
        assert_eq!(parse_block_token("<!-- x -->"), None);
    }
}
