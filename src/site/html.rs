//! A small HTML builder that escapes by construction.
//!
//! Tag and attribute names are `&'static str` (written in this crate, never read from a
//! config or a lesson); every text and every attribute value is escaped as it is written, and
//! every `href` or `src` through [`safe_url`]. So no user string — a title, a label, a claim's
//! name, a lesson's Markdown — can open an element or an attribute: it shows as the text it is.

use std::fmt::Write;

/// HTML under construction.
#[derive(Debug, Default)]
pub(crate) struct Html {
    out: String,
}

/// The screens a chart's phone rendering is shown on (`picture`'s media query): up to a
/// small tablet's width, where a chart drawn 1,000 pixels wide would show its text at
/// under 8 pixels.
pub(crate) const NARROW_SCREEN: &str = "(max-width: 720px)";

/// Attributes: static names, values escaped when written.
pub(crate) type Attrs<'a> = [(&'static str, &'a str)];

impl Html {
    /// An empty fragment.
    pub(crate) fn new() -> Html {
        Html::default()
    }

    /// `<!DOCTYPE html>` and a line that says who wrote the file (`head`, a constant).
    pub(crate) fn doctype(&mut self, head: &'static str) -> &mut Html {
        self.out.push_str("<!DOCTYPE html>\n");
        self.out.push_str(head);
        self.out.push('\n');
        self
    }

    /// Text, escaped.
    pub(crate) fn text(&mut self, text: &str) -> &mut Html {
        escape_into(&mut self.out, text);
        self
    }

    /// A line break in the source (no meaning in HTML outside `<pre>`).
    pub(crate) fn newline(&mut self) -> &mut Html {
        self.out.push('\n');
        self
    }

    /// `<tag attrs…>`.
    pub(crate) fn open(&mut self, tag: &'static str, attrs: &Attrs<'_>) -> &mut Html {
        self.out.push('<');
        self.out.push_str(tag);
        for (name, value) in attrs {
            let value = if matches!(*name, "href" | "src" | "srcset") {
                safe_url(value)
            } else {
                value
            };
            let _ = write!(self.out, " {name}=\"");
            escape_into(&mut self.out, value);
            self.out.push('"');
        }
        self.out.push('>');
        self
    }

    /// `</tag>`.
    pub(crate) fn close(&mut self, tag: &'static str) -> &mut Html {
        let _ = write!(self.out, "</{tag}>");
        self
    }

    /// `<tag attrs…>` without a closing tag (`img`, `meta`, `link`, `br`).
    pub(crate) fn void(&mut self, tag: &'static str, attrs: &Attrs<'_>) -> &mut Html {
        self.open(tag, attrs)
    }

    /// A chart's image: its phone rendering (`narrow`, when it has one) on screens at most
    /// [`NARROW_SCREEN`] wide, the chart itself on any other. A chart shrunk to a phone's
    /// width would have text of 4 pixels; the phone rendering is laid out at that width.
    pub(crate) fn chart_image(&mut self, src: &str, narrow: Option<&str>, alt: &str) -> &mut Html {
        match narrow {
            Some(narrow) => self.with("picture", &[], |h| {
                h.void("source", &[("media", NARROW_SCREEN), ("srcset", narrow)]);
                h.void("img", &[("src", src), ("alt", alt)]);
            }),
            None => self.void("img", &[("src", src), ("alt", alt)]),
        }
    }

    /// `<script type="application/json" class="…">json</script>`: data for `site.js`, which
    /// no browser runs. Every `<` is written `\u003c`, which JSON reads back as the same
    /// character (it can only be inside a string), so no text in it ends the element.
    pub(crate) fn json(&mut self, class: &str, json: &str) -> &mut Html {
        self.open("script", &[("type", "application/json"), ("class", class)]);
        self.out.push_str(&json.replace('<', "\\u003c"));
        self.close("script")
    }

    /// `<img>` whose source is `bytes` themselves, as a `data:` URL of `mime` (a constant):
    /// an image a fragment holds, which asks for no file. An SVG shown by `<img>` runs no
    /// script and loads nothing, whatever it holds.
    pub(crate) fn data_image(&mut self, mime: &'static str, bytes: &[u8], alt: &str) -> &mut Html {
        // Not through `open`: `safe_url` refuses `data:` in a link or a source the lesson
        // writes; this one is built here, of base64's letters alone.
        let _ = write!(self.out, "<img src=\"data:{mime};base64,");
        base64_into(&mut self.out, bytes);
        self.out.push_str("\" alt=\"");
        escape_into(&mut self.out, alt);
        self.out.push_str("\">");
        self
    }

    /// An SVG chart coordsim drew, written as it is: [`super::svg::InlineSvg`] holds
    /// only one whose every element and attribute is on its list.
    pub(crate) fn inline_svg(&mut self, svg: &super::svg::InlineSvg) -> &mut Html {
        self.out.push_str(svg.text());
        self
    }

    /// `<style>` or `<script>` holding `code`, a constant of the binary or built from
    /// one (never a user's text): a `</` in it would end the element, so it is written `<\/`
    /// (the same in a script's string; a stylesheet has none).
    pub(crate) fn inline_code(&mut self, tag: &'static str, code: &str) -> &mut Html {
        self.open(tag, &[]);
        self.out.push_str(&code.replace("</", "<\\/"));
        self.close(tag)
    }

    /// `<tag attrs…>text</tag>`.
    pub(crate) fn el(&mut self, tag: &'static str, attrs: &Attrs<'_>, text: &str) -> &mut Html {
        self.open(tag, attrs).text(text).close(tag)
    }

    /// `<tag attrs…>`, what `body` writes, `</tag>`.
    pub(crate) fn with(
        &mut self,
        tag: &'static str,
        attrs: &Attrs<'_>,
        body: impl FnOnce(&mut Html),
    ) -> &mut Html {
        self.open(tag, attrs);
        body(self);
        self.close(tag)
    }

    /// Appends another fragment (built the same way, so already safe).
    pub(crate) fn append(&mut self, other: Html) -> &mut Html {
        self.out.push_str(&other.out);
        self
    }

    /// The text of the document.
    pub(crate) fn finish(self) -> String {
        self.out
    }
}

/// Appends `text` with `& < > " '` as character references, NUL as U+FFFD.
fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\0' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
}

/// Appends `bytes` in base64 (RFC 4648, with padding).
fn base64_into(out: &mut String, bytes: &[u8]) {
    const LETTERS: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(LETTERS[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
}

/// A URL an `href` or `src` may hold: relative (no scheme), a fragment, or `http:`,
/// `https:` or `mailto:`; anything else (`javascript:`, `data:`, `vbscript:`, `file:`) is
/// replaced by `#`.
pub(crate) fn safe_url(url: &str) -> &str {
    // Browsers drop these before reading a scheme (`java\tscript:`).
    if url.chars().any(|c| c.is_control()) {
        return "#";
    }
    let scheme_end = url.find(':');
    let path_start = url.find(['/', '?', '#']);
    match (scheme_end, path_start) {
        (None, _) => url,
        (Some(colon), Some(path)) if path < colon => url,
        (Some(colon), _) => {
            let scheme = url[..colon].to_ascii_lowercase();
            if matches!(scheme.as_str(), "http" | "https" | "mailto") {
                url
            } else {
                "#"
            }
        }
    }
}

/// One path segment for a URL: every byte but `A-Z a-z 0-9 - . _ ~` percent-encoded, so a
/// file name with spaces, `#`, `?` or letters beyond ASCII links to that file.
pub(crate) fn url_segment(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_attributes_are_escaped() {
        let mut h = Html::new();
        h.el(
            "p",
            &[("title", "\"><script>x</script>")],
            "<script>alert(1)</script> & 'q'",
        );
        assert_eq!(
            h.finish(),
            "<p title=\"&quot;&gt;&lt;script&gt;x&lt;/script&gt;\">&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#39;q&#39;</p>"
        );
    }

    #[test]
    fn only_relative_and_web_urls_pass() {
        for ok in [
            "config-a.html",
            "#L12",
            "../a/results.csv",
            "https://example.org/x",
            "mailto:a@b.c",
            "a/b:c",
            "?q=a:b",
        ] {
            assert_eq!(safe_url(ok), ok);
        }
        for bad in [
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            "java\tscript:alert(1)",
            "data:text/html,<b>",
            "vbscript:x",
            "file:///etc/passwd",
        ] {
            assert_eq!(safe_url(bad), "#", "{bad}");
        }
        let mut h = Html::new();
        h.el("a", &[("href", "javascript:alert(1)")], "x");
        assert_eq!(h.finish(), "<a href=\"#\">x</a>");
    }

    #[test]
    fn base64_is_rfc_4648s() {
        // RFC 4648's test vectors (section 10).
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            let mut out = String::new();
            base64_into(&mut out, plain.as_bytes());
            assert_eq!(out, coded, "{plain}");
        }
        let mut h = Html::new();
        h.data_image("image/png", &[0xff, 0xfe], "a \"b\"");
        assert_eq!(
            h.finish(),
            "<img src=\"data:image/png;base64,//4=\" alt=\"a &quot;b&quot;\">"
        );
    }

    #[test]
    fn segments_are_percent_encoded() {
        assert_eq!(url_segment("a b#?ş.html"), "a%20b%23%3F%C5%9F.html");
        assert_eq!(
            url_segment("mg1-service_variability.x~"),
            "mg1-service_variability.x~"
        );
    }
}
