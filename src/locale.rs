//! How numbers and built-in words are written for readers: `en` or `tr`.
//!
//! A locale touches what people read (`table.md`, chart ticks, legends, titles, lesson
//! text); CSV files are for programs and always use `.` and no grouping. Every built-in word
//! has an English and a Turkish rendering ([`Text`]) and a `[labels]` key that overrides it.

/// A reader's locale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Locale {
    /// English: `12,345.6`, `88.8%`.
    #[default]
    En,
    /// Turkish: `12.345,6`, `%88,8`.
    Tr,
}

/// The locale names a config or lesson may give.
pub(crate) const LOCALES: &[&str] = &["en", "tr"];

/// Integer parts with at least this many digits are grouped in threes (`1,234`, `12.345`):
/// every tick of one axis then reads alike (`5,000` beside `25,000`).
pub(crate) const GROUP_FROM_DIGITS: usize = 4;

impl Locale {
    /// The locale called `name` (`"en"`, `"tr"`).
    pub(crate) fn parse(name: &str) -> Option<Locale> {
        match name {
            "en" => Some(Locale::En),
            "tr" => Some(Locale::Tr),
            _ => None,
        }
    }

    /// Its name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Locale::En => "en",
            Locale::Tr => "tr",
        }
    }

    /// The decimal mark.
    pub(crate) fn decimal_mark(self) -> char {
        match self {
            Locale::En => '.',
            Locale::Tr => ',',
        }
    }

    /// The thousands separator.
    pub(crate) fn group_mark(self) -> char {
        match self {
            Locale::En => ',',
            Locale::Tr => '.',
        }
    }

    /// What parts figures in a list (`written 7, run 6`): a comma, or where the comma is
    /// the decimal mark a semicolon (`written 7,5; run 6,5`).
    pub(crate) fn list_mark(self) -> char {
        match self {
            Locale::En => ',',
            Locale::Tr => ';',
        }
    }

    /// A number written the machine way (`-12345.678`, as Rust or a CSV cell prints it) in
    /// this locale; anything that is not such a number (a word, `inf`) comes back as it is.
    pub(crate) fn number(self, plain: &str) -> String {
        let (sign, rest) = match plain.strip_prefix('-') {
            Some(rest) => ("-", rest),
            None => ("", plain),
        };
        let (int, frac) = match rest.split_once('.') {
            Some((i, f)) => (i, Some(f)),
            None => (rest, None),
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(int) || frac.is_some_and(|f| !digits(f)) {
            return plain.to_string();
        }
        let mut out = String::with_capacity(plain.len() + int.len() / 3 + 1);
        out.push_str(sign);
        if int.len() >= GROUP_FROM_DIGITS {
            for (i, c) in int.chars().enumerate() {
                if i > 0 && (int.len() - i) % 3 == 0 {
                    out.push(self.group_mark());
                }
                out.push(c);
            }
        } else {
            out.push_str(int);
        }
        if let Some(frac) = frac {
            out.push(self.decimal_mark());
            out.push_str(frac);
        }
        out
    }

    /// A percentage: `%88,8` in Turkish, `88.8%` in English (`number` already localized).
    pub(crate) fn percent(self, number: &str) -> String {
        match self {
            Locale::En => format!("{number}%"),
            Locale::Tr => format!("%{number}"),
        }
    }

    /// Reads a number written in this locale (`206,5`, `12.345`, `-3`): its value and the
    /// number of decimals written. Group marks are accepted only between groups of three
    /// digits, so `1.5` is not a number in Turkish (it would be `1,5`).
    pub(crate) fn parse_number(self, text: &str) -> Option<(f64, usize)> {
        let (sign, rest) = match text.strip_prefix(['-', '−']) {
            Some(rest) => (-1.0, rest),
            None => (1.0, text.strip_prefix('+').unwrap_or(text)),
        };
        let (int, frac) = match rest.split_once(self.decimal_mark()) {
            Some((i, f)) => (i, Some(f)),
            None => (rest, None),
        };
        let groups: Vec<&str> = int.split(self.group_mark()).collect();
        let grouped = groups.len() > 1;
        let valid_groups = groups.iter().enumerate().all(|(i, g)| {
            !g.is_empty()
                && g.bytes().all(|b| b.is_ascii_digit())
                && (!grouped || (if i == 0 { g.len() <= 3 } else { g.len() == 3 }))
        });
        if !valid_groups
            || frac.is_some_and(|f| f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()))
        {
            return None;
        }
        let plain = match frac {
            Some(f) => format!("{}.{f}", groups.concat()),
            None => groups.concat(),
        };
        let value: f64 = plain.parse().ok()?;
        Some((sign * value, frac.map_or(0, str::len)))
    }
}

/// A built-in word or phrase of the charts and tables, overridable in `[labels]` by its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    /// The x axis of a timeline.
    VirtualTimeAxis,
    /// The y axis of a cdf over runs.
    RunsFractionAxis,
    /// The y axis of a cdf over a run's own samples (requests).
    SamplesFractionAxis,
    /// The y axis of a histogram.
    SamplesCountAxis,
    /// The legend entry of the 95% interval drawn around a line.
    IntervalLegend,
    /// "seed" in a table caption.
    CaptionSeed,
    /// "model" in a table caption.
    CaptionModel,
    /// The note on a table of means over replications (after the number of replications).
    CaptionReplications,
    /// The same note when the table shows the means alone (`intervals = false`).
    CaptionMeans,
    /// A timeline's note when it draws the first lanes only (`{shown}`, `{total}`).
    TimelineLanesNote,
    /// A timeline's note when marks were thinned (`{drawn}`, `{seen}`).
    TimelineMarksNote,
    /// A timeline's note when neighbouring spans were merged (`{drawn}`, `{seen}`).
    TimelineSpansNote,
    /// A bar chart's note when it draws the first bar groups only (`{shown}`, `{total}`).
    BarGroupsNote,
    /// A line or bar chart's note when it draws the first series only (`{shown}`,
    /// `{total}`).
    SeriesNote,
    /// A line chart's note when its lines were thinned (`{drawn}`, `{seen}`).
    LinePointsNote,
    /// A chart's note when a log axis left points out (`{count}`).
    LogNote,
    /// The header of a trace chart's step numbers.
    TraceStepHeader,
    /// A trace chart's note when every step ran at one instant (`{time}`).
    TraceInstantNote,
    /// A trace chart's note when it draws the first steps only (`{shown}`, `{total}`).
    TraceStepsNote,
    /// A timeline's note when its `focus` kind never happened (`{kind}`).
    TimelineFocusNote,
    /// A timeline's note when a level's neighbouring steps were merged (`{drawn}`, `{seen}`).
    TimelineLevelsNote,
    /// A timeline's note when an actor had more repetitions under way than sub-rows
    /// (`{rows}`, `{count}`: repetitions drawn in no row, over every lane).
    TimelineRowsNote,
    /// A timeline's note when a lane is drawn with its density strip.
    TimelineDensityNote,
    /// The legend entry of a lock lane's merged steps of several holders.
    TimelineSeveralHolders,
    /// A timeline's note when its lanes draw their first items and a density band
    /// (`{count}`).
    TimelineFirstItemsNote,
    /// The y axis of an exact cdf: a probability (explored) or a share of runs.
    ExactFractionAxis,
    /// An exact cdf's legend entry of a point's distribution over its executions.
    ExactLegend,
    /// The same where an order is free and every scheduler gives one distribution.
    ExactAlikeLegend,
    /// The same where schedulers differ: the band from the least to the greatest.
    ExactBandLegend,
    /// An exact cdf's legend entry of the runs' empirical distribution (`{runs}`).
    SimulatedLegend,
    /// An exact cdf's note when its band was computed at some values only (`{drawn}`,
    /// `{values}`).
    ExactBandNote,
}

impl Text {
    /// Every built-in text.
    pub const ALL: [Text; 31] = [
        Text::VirtualTimeAxis,
        Text::RunsFractionAxis,
        Text::SamplesFractionAxis,
        Text::SamplesCountAxis,
        Text::IntervalLegend,
        Text::CaptionSeed,
        Text::CaptionModel,
        Text::CaptionReplications,
        Text::CaptionMeans,
        Text::TimelineLanesNote,
        Text::TimelineMarksNote,
        Text::TimelineSpansNote,
        Text::BarGroupsNote,
        Text::SeriesNote,
        Text::LinePointsNote,
        Text::LogNote,
        Text::TraceStepHeader,
        Text::TraceInstantNote,
        Text::TraceStepsNote,
        Text::TimelineFocusNote,
        Text::TimelineLevelsNote,
        Text::TimelineRowsNote,
        Text::TimelineDensityNote,
        Text::TimelineSeveralHolders,
        Text::TimelineFirstItemsNote,
        Text::ExactFractionAxis,
        Text::ExactLegend,
        Text::ExactAlikeLegend,
        Text::ExactBandLegend,
        Text::SimulatedLegend,
        Text::ExactBandNote,
    ];

    /// The `[labels]` key that overrides it.
    pub fn key(self) -> &'static str {
        match self {
            Text::VirtualTimeAxis => "virtual_time_axis",
            Text::RunsFractionAxis => "runs_fraction_axis",
            Text::SamplesFractionAxis => "samples_fraction_axis",
            Text::SamplesCountAxis => "samples_count_axis",
            Text::IntervalLegend => "interval_legend",
            Text::CaptionSeed => "caption_seed",
            Text::CaptionModel => "caption_model",
            Text::CaptionReplications => "caption_replications",
            Text::CaptionMeans => "caption_means",
            Text::TimelineLanesNote => "timeline_lanes_note",
            Text::TimelineMarksNote => "timeline_marks_note",
            Text::TimelineSpansNote => "timeline_spans_note",
            Text::BarGroupsNote => "bar_groups_note",
            Text::SeriesNote => "series_note",
            Text::LinePointsNote => "line_points_note",
            Text::LogNote => "log_note",
            Text::TraceStepHeader => "trace_step_header",
            Text::TraceInstantNote => "trace_instant_note",
            Text::TraceStepsNote => "trace_steps_note",
            Text::TimelineFocusNote => "timeline_focus_note",
            Text::TimelineLevelsNote => "timeline_levels_note",
            Text::TimelineRowsNote => "timeline_rows_note",
            Text::TimelineDensityNote => "timeline_density_note",
            Text::TimelineSeveralHolders => "timeline_several_holders",
            Text::TimelineFirstItemsNote => "timeline_first_items_note",
            Text::ExactFractionAxis => "exact_fraction_axis",
            Text::ExactLegend => "exact_legend",
            Text::ExactAlikeLegend => "exact_alike_legend",
            Text::ExactBandLegend => "exact_band_legend",
            Text::SimulatedLegend => "simulated_legend",
            Text::ExactBandNote => "exact_band_note",
        }
    }

    /// Its rendering in `locale`.
    pub fn in_locale(self, locale: Locale) -> &'static str {
        let (en, tr) = match self {
            Text::VirtualTimeAxis => ("virtual time (ms)", "sanal zaman (ms)"),
            Text::RunsFractionAxis => ("fraction of runs ≤ x", "koşuların ≤ x oranı"),
            Text::SamplesFractionAxis => ("fraction of requests ≤ x", "isteklerin ≤ x oranı"),
            Text::SamplesCountAxis => ("requests", "istek sayısı"),
            Text::IntervalLegend => ("95% interval", "%95 aralık"),
            Text::CaptionSeed => ("seed", "tohum"),
            Text::CaptionModel => ("model", "model"),
            Text::CaptionReplications => (
                "replications (mean ± 95% CI half-width)",
                "tekrar (ortalama ± %95 güven aralığının yarı genişliği)",
            ),
            Text::CaptionMeans => ("replications (means)", "tekrar (ortalamalar)"),
            Text::TimelineLanesNote => (
                "only the first {shown} of {total} lanes drawn",
                "{total} satırın yalnız ilk {shown} tanesi çizildi",
            ),
            Text::TimelineMarksNote => (
                "marks thinned evenly: {drawn} of {seen} drawn",
                "işaretler eşit aralıkla seyreltildi: {seen} işaretin {drawn} tanesi çizildi",
            ),
            Text::TimelineSpansNote => (
                "neighbouring spans merged: {seen} drawn as {drawn}",
                "komşu aralıklar birleştirildi: {seen} aralık {drawn} olarak çizildi",
            ),
            Text::BarGroupsNote => (
                "only the first {shown} of {total} bar groups drawn",
                "{total} çubuk grubunun yalnız ilk {shown} tanesi çizildi",
            ),
            Text::SeriesNote => (
                "only the first {shown} of {total} series drawn",
                "{total} serinin yalnız ilk {shown} tanesi çizildi",
            ),
            Text::LinePointsNote => (
                "lines thinned: {drawn} of {seen} points drawn, each stretch's lowest and highest kept",
                "çizgiler seyreltildi: {seen} noktanın {drawn} tanesi çizildi, her aralığın en düşüğü ve en yükseği korundu",
            ),
            Text::LogNote => (
                "{count} points at or below 0 left out: a log axis cannot show them",
                "0 ya da altındaki {count} nokta çizilmedi: log eksen onları gösteremez",
            ),
            Text::TraceStepHeader => ("step", "adım"),
            Text::TraceInstantNote => (
                "every step at {time} ms: only their order differs",
                "her adım {time} ms anında: yalnız sıraları farklı",
            ),
            Text::TraceStepsNote => (
                "only the first {shown} of {total} steps drawn",
                "{total} adımın yalnız ilk {shown} tanesi çizildi",
            ),
            Text::TimelineFocusNote => (
                "no {kind} in this run: all of it drawn",
                "bu koşuda {kind} yok: tamamı çizildi",
            ),
            Text::TimelineLevelsNote => (
                "level steps merged: {seen} drawn as {drawn}, each shaded over its range",
                "düzey adımları birleştirildi: {seen} adım {drawn} olarak çizildi, aralığı gölgeli",
            ),
            Text::TimelineRowsNote => (
                "{count} repetitions past {rows} rows at once: the black line counts those under way",
                "aynı anda {rows} satırı aşan {count} tekrar: siyah çizgi sürenleri sayar",
            ),
            Text::TimelineDensityNote => (
                "the grey strip under a thinned lane counts what it had in each pixel column (darker: more)",
                "seyreltilmiş satırın altındaki gri şerit her piksel sütunundaki olay sayısını gösterir (koyu: çok)",
            ),
            Text::TimelineFirstItemsNote => (
                "each lane: its first {count} items drawn, then a grey band counting the rest per pixel column (darker: more)",
                "her satır: ilk {count} öğesi çizildi, sonrası gri bantta piksel sütunu başına sayıldı (koyu: çok)",
            ),
            Text::TimelineSeveralHolders => (
                "several holders (merged)",
                "birden çok tutan (birleştirildi)",
            ),
            Text::ExactFractionAxis => ("probability of ≤ x", "≤ x olma olasılığı"),
            Text::ExactLegend => ("exact (explored)", "kesin (taranmış)"),
            Text::ExactAlikeLegend => (
                "exact: every scheduler alike",
                "kesin: her zamanlayıcıda aynı",
            ),
            Text::ExactBandLegend => (
                "exact: min–max over schedulers",
                "kesin: zamanlayıcılarda en az–en çok",
            ),
            Text::SimulatedLegend => ("simulated ({runs} runs)", "simülasyon ({runs} koşu)"),
            Text::ExactBandNote => (
                "band computed at {drawn} of {values} values, held between them",
                "bant {values} değerin {drawn} tanesinde hesaplandı, aralarında sabit tutuldu",
            ),
        };
        match locale {
            Locale::En => en,
            Locale::Tr => tr,
        }
    }

    /// The text whose key is `key`.
    pub(crate) fn from_key(key: &str) -> Option<Text> {
        Text::ALL.into_iter().find(|t| t.key() == key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_both_locales() {
        assert_eq!(Locale::Tr.number("206.5"), "206,5");
        assert_eq!(Locale::En.number("206.5"), "206.5");
        // Four digits and more group in threes; three stay as they are.
        assert_eq!(Locale::Tr.number("1234.5"), "1.234,5");
        assert_eq!(Locale::Tr.number("123.5"), "123,5");
        assert_eq!(Locale::Tr.number("12345.5"), "12.345,5");
        assert_eq!(Locale::En.number("-1234567"), "-1,234,567");
        assert_eq!(Locale::Tr.number("poisson"), "poisson");
        assert_eq!(Locale::Tr.number("inf"), "inf");
        assert_eq!(Locale::Tr.percent(&Locale::Tr.number("88.8")), "%88,8");
        assert_eq!(Locale::En.percent("88.8"), "88.8%");
    }

    #[test]
    fn a_locale_reads_back_its_own_number_format_only() {
        assert_eq!(Locale::Tr.parse_number("206,5"), Some((206.5, 1)));
        assert_eq!(Locale::Tr.parse_number("12.345,25"), Some((12345.25, 2)));
        assert_eq!(Locale::En.parse_number("12,345.25"), Some((12345.25, 2)));
        assert_eq!(Locale::En.parse_number("-45"), Some((-45.0, 0)));
        // A dot is not a decimal mark in Turkish, nor a comma in English.
        assert_eq!(Locale::Tr.parse_number("1.5"), None);
        assert_eq!(Locale::En.parse_number("1,5"), None);
        assert_eq!(Locale::Tr.parse_number("1,"), None);
        assert_eq!(Locale::Tr.parse_number(""), None);
        assert_eq!(Locale::Tr.parse_number("ms"), None);
    }

    #[test]
    fn every_text_has_a_distinct_key_and_both_renderings() {
        for t in Text::ALL {
            assert_eq!(Text::from_key(t.key()), Some(t));
            assert!(!t.in_locale(Locale::En).is_empty());
            assert!(!t.in_locale(Locale::Tr).is_empty());
        }
    }
}
