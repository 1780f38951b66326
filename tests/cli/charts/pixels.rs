//! The drawn image: every PNG is its SVG drawn pixel for pixel, and the letters of a line
//! share its baseline and x-height.

use super::assert_self_contained;
use crate::harness::*;

/// An SVG file drawn by the test's own resvg call (white under it, the PNG's pixel size),
/// with no font database: RGB rows.
fn render_svg_file(svg: &[u8], (w, h): (u32, u32)) -> Vec<u8> {
    let options = resvg::usvg::Options {
        fontdb: std::sync::Arc::new(resvg::usvg::fontdb::Database::new()),
        ..Default::default()
    };
    let tree = resvg::usvg::Tree::from_data(svg, &options).unwrap();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(w, h).unwrap();
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    let size = tree.size();
    let ts =
        resvg::tiny_skia::Transform::from_scale(w as f32 / size.width(), h as f32 / size.height());
    resvg::render(&tree, ts, &mut pixmap.as_mut());
    pixmap
        .data()
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect()
}

/// A PNG file's size and RGB rows.
fn decode_png(bytes: &[u8]) -> ((u32, u32), Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    buf.truncate(info.buffer_size());
    ((info.width, info.height), buf)
}

/// A Turkish queue with a line chart at PNG scale 2 and a lock timeline at scale 1.
const TWINS: &str = r#"model = "lock_queue"
locale = "tr"
title = "Kilit: şğıİ"
[params]
appliers = 2
[sweep]
hold_ms = [50, 100]
[[chart]]
name = "bekleme"
x = "hold_ms"
y = ["wait_max_ms"]
scale = 2
[[chart]]
name = "zaman"
kind = "timeline"
where = { hold_ms = 100 }
[labels]
hold_ms = "tutma süresi (ms)"
wait_max_ms = "en uzun bekleme (ms)"
"#;

#[test]
fn every_png_is_its_svg_drawn_pixel_for_pixel() {
    // The files a run writes, compared with the test's own rendering of each written SVG
    // (no font database: the SVG carries its glyphs). Equal bytes, at scale 1 and 2.
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "kilit.toml", TWINS);
    let out = tmp.path().join("out");
    let o = coordsim(&["run", &config, "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let dir = out.join("kilit");
    for (name, scale) in [("bekleme", 2), ("zaman", 1)] {
        let svg = read(dir.join(format!("{name}.svg")));
        let text = String::from_utf8(svg.clone()).unwrap();
        assert!(
            text.starts_with("<svg width=\"1000\" height=\"620\""),
            "{name}"
        );
        assert_self_contained(
            name,
            &text,
            if name == "zaman" {
                "Kilit: şğıİ (tutma süresi (ms) = 100)"
            } else {
                "Kilit: şğıİ"
            },
        );
        let ((w, h), png) = decode_png(&read(dir.join(format!("{name}.png"))));
        // The chart's 1000 × 620 pixels times its scale.
        assert_eq!((w, h), (1000 * scale, 620 * scale), "{name}");
        let drawn = render_svg_file(&svg, (w, h));
        let differ = png.iter().zip(&drawn).filter(|(a, b)| a != b).count();
        assert_eq!(
            differ, 0,
            "{name}: {differ} bytes differ from the SVG drawn"
        );
        // And it is a chart, not a blank page: a good share of non-white pixels.
        let inked = png
            .chunks_exact(3)
            .filter(|p| p.iter().any(|&c| c < 200))
            .count();
        assert!(inked > 2_000, "{name}: {inked} dark pixels");
    }
}

#[test]
fn the_letters_of_a_line_share_its_baseline_and_x_height() {
    // `z l k x i r` all stand flat on the baseline; `z` and `x` also reach the x-height,
    // flat. In the title and in the x axis title (two font sizes), every letter's lowest
    // dark pixel row is the same, and `z` and `x` share their highest one. (The old
    // bitmap text rounded each glyph's offset from its own top: `z` and `x` sat a pixel
    // above `l`, `k`, `i` and `r`.)
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(
        tmp.path(),
        "zx.toml",
        "model = \"single_writer_queue\"\n[sweep]\nclients = [1, 2]\n[[chart]]\nname = \"c\"\nx = \"clients\"\ny = [\"mean_wait_ms\"]\ntitle = \"z l k x i r z\"\nx_label = \"z l k x i r z\"\nlegend = \"none\"\n[labels]\nmean_wait_ms = \"wait\"\n",
    );
    let out = tmp.path().join("out");
    let o = coordsim(&["run", &config, "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ((w, h), rgb) = decode_png(&read(out.join("zx/c.png")));
    let dark = |x: u32, y: u32| rgb[(y * w + x) as usize * 3] < 128;
    // Letters: runs of inked columns within a band of rows, each with its top and bottom.
    let letters = |rows: std::ops::Range<u32>| {
        let inked: Vec<bool> = (0..w).map(|x| rows.clone().any(|y| dark(x, y))).collect();
        let mut found = Vec::new();
        let mut x = 0;
        while x < w {
            if inked[x as usize] {
                let start = x;
                while x < w && inked[x as usize] {
                    x += 1;
                }
                let ys: Vec<u32> = rows
                    .clone()
                    .filter(|&y| (start..x).any(|c| dark(c, y)))
                    .collect();
                found.push((start, ys[0], *ys.last().unwrap()));
            }
            x += 1;
        }
        found
    };
    // The title is the only ink in the top 60 rows, the x axis title in the last 50 (under
    // the tick labels).
    for (line, rows) in [("title", 0..60), ("x axis title", h - 50..h)] {
        let found = letters(rows);
        assert_eq!(found.len(), 7, "{line}: seven letters apart: {found:?}");
        let bottom = found[0].2;
        for &(x, _, b) in &found {
            assert_eq!(
                b, bottom,
                "{line}: the letter at x = {x} leaves the baseline: {found:?}"
            );
        }
        // z, x, z: indices 0, 3 and 6.
        let top = found[0].1;
        for i in [3, 6] {
            assert_eq!(found[i].1, top, "{line}: x-height: {found:?}");
        }
    }
}
