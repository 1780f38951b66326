//! The site's own words in a page's language: a config's page in its config's locale, a
//! lesson's page in its lesson's (the index, which lists pages of every language, in the
//! English locale's). Each phrase is written in English where the page is built
//! (`say(lc, "Claims")`) and found here, with its key and its Turkish; `{name}` placeholders
//! are filled by the caller. A course may replace any of them by key in a locale file of its
//! own ([`super::locales`]). A test reads every page module and fails on a phrase with no
//! Turkish, so a new English word cannot reach a Turkish page unnoticed; `say` itself stops
//! a test build on a phrase that has no key.

use crate::locale::Locale;

/// A course's words for the pages of one locale, as its locale file gives them
/// ([`super::locales`] reads the file).
#[derive(Debug, Default)]
pub(crate) struct CourseWords {
    /// The words' own language (`<html lang>`), when not the locale's: then a word the file
    /// leaves out is English.
    pub(crate) language: Option<String>,
    /// The course's word for each of [`WORDS`], by index, when it gives one.
    pub(crate) given: Vec<Option<String>>,
}

/// The words a page is written in: its locale's, and the course's own for that locale where
/// it gives them. Cheap to copy: every page function takes one.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Words<'a> {
    /// The page's locale: its numbers, and the built-in words it falls back on.
    pub(crate) locale: Locale,
    /// The course's locale file for it, when there is one.
    pub(crate) course: Option<&'a CourseWords>,
}

impl Words<'_> {
    /// The built-in words of `locale`, nothing of a course's.
    #[cfg(test)]
    pub(crate) fn built_in(locale: Locale) -> Words<'static> {
        Words {
            locale,
            course: None,
        }
    }

    /// The language the page's words are in (`<html lang>`): the course's own when its file
    /// says so (`language = "de"`), else the locale's.
    pub(crate) fn language(&self) -> &str {
        self.course
            .and_then(|c| c.language.as_deref())
            .unwrap_or(self.locale.name())
    }
}

/// `en` in the page's words: the course's word for its key when its locale file gives one;
/// else, in a file of another language, the English; else the locale's built-in word.
///
/// Every phrase a page says is one of [`WORDS`]: a build with debug assertions (the tests')
/// stops on one that is not, wherever its text came from.
pub(crate) fn say<'a>(words: Words<'a>, en: &'static str) -> &'a str {
    let Some(i) = WORDS.iter().position(|(_, e, _)| *e == en) else {
        debug_assert!(false, "the site says {en:?}, which has no key in WORDS");
        return en;
    };
    if let Some(course) = words.course {
        if let Some(Some(word)) = course.given.get(i) {
            return word;
        }
        if course.language.is_some() {
            return en;
        }
    }
    match words.locale {
        Locale::En => en,
        Locale::Tr => WORDS[i].2,
    }
}

/// The placeholders of a phrase (`{passed}`, `{total}`), sorted: what a course's word for
/// it must keep.
pub(crate) fn placeholders(text: &str) -> Vec<String> {
    let mut holes: Vec<String> = text
        .split('{')
        .skip(1)
        .filter_map(|p| p.split_once('}').map(|(n, _)| n.to_string()))
        .collect();
    holes.sort();
    holes
}

/// Every phrase of the config and lesson pages and their frame: its key (what a course's
/// locale file names it by), its English and its Turkish.
pub(crate) const WORDS: &[(&str, &str, &str)] = &[
    // The frame.
    ("site_name", "coordsim report", "coordsim raporu"),
    ("footer_written_by", "Written by ", "Yazan: "),
    (
        "footer_promise",
        ": every figure re-run and re-checked; no server, no network.",
        ": her sayı yeniden koşulup denetlendi; sunucu yok, ağ yok.",
    ),
    // A config's page.
    ("fact_config", "config", "dosya"),
    ("fact_model", "model", "model"),
    ("fact_runs", "runs", "koşular"),
    ("fact_locale", "locale", "dil"),
    ("fact_data", "data", "veri"),
    (
        "runs_summary",
        "{points} point(s) × {replications} replication(s); {rows} row(s) in results.csv; seed {seed}",
        "{points} nokta × {replications} tekrar; results.csv'de {rows} satır; tohum {seed}",
    ),
    ("heading_claims", "Claims", "İddialar"),
    ("heading_table", "Table", "Tablo"),
    ("heading_charts", "Charts", "Grafikler"),
    ("heading_executions", "Every execution", "Her yürütme"),
    ("heading_parameters", "Parameters", "Parametreler"),
    ("heading_sweep", "Sweep", "Tarama"),
    ("heading_config_text", "Config text", "Yapılandırma metni"),
    (
        "no_claims",
        "This config makes no claim.",
        "Bu yapılandırma hiçbir iddiada bulunmaz.",
    ),
    (
        "claims_summary",
        "{passed} of {total} claim(s) hold, {failed} fail.",
        "{total} iddianın {passed} tanesi tutuyor, {failed} tanesi tutmuyor.",
    ),
    ("column_claim", "claim", "iddia"),
    ("column_verdict", "verdict", "sonuç"),
    ("column_reads", "reads", "okuduğu"),
    ("column_where", "where", "nerede"),
    ("column_expected", "expected", "beklenen"),
    ("column_measured", "measured", "ölçülen"),
    ("column_line", "line", "satır"),
    ("pass", "PASS", "GEÇTİ"),
    ("fail", "FAIL", "KALDI"),
    ("the_one_row", "the one row", "tek satır"),
    ("worst_row", " — worst: {row}", " — en kötü: {row}"),
    ("replications_close", "replications)", "tekrar)"),
    ("replication_close", "replication)", "tekrar)"),
    (
        "replications_alone",
        "{count} replications",
        "{count} tekrar",
    ),
    ("replication_alone", "1 replication", "1 tekrar"),
    ("replication", "replication ", "tekrar "),
    ("mean_of", "mean of {metric}", "{metric} ortalaması"),
    ("min_of", "min of {metric}", "{metric} en küçüğü"),
    ("max_of", "max of {metric}", "{metric} en büyüğü"),
    (
        "percentile_of",
        "{p}th percentile of {metric}",
        "{metric} {p}. yüzdeliği",
    ),
    (
        "at_most_slack",
        "at most {value} (slack {slack})",
        "en çok {value} (pay {slack})",
    ),
    ("at_most", "at most {value}", "en çok {value}"),
    (
        "at_least_slack",
        "at least {value} (slack {slack})",
        "en az {value} (pay {slack})",
    ),
    ("at_least", "at least {value}", "en az {value}"),
    (
        "ratio_within",
        "{value}, the ratio in [{lo}, {hi}]",
        "{value}, oran [{lo}, {hi}] içinde",
    ),
    (
        "inside_interval",
        "{value}, inside the {level} interval [{lo}, {hi}]",
        "{value}, {level} güven aralığı [{lo}, {hi}] içinde",
    ),
    // What a claim over executions, of text, or with an empty expectation expects, in
    // parts as `check` says it, and its worst row's executions.
    ("holds_always", "always: {test}", "her yürütmede: {test}"),
    (
        "holds_sometimes",
        "sometimes: {test}",
        "bazı yürütmelerde: {test}",
    ),
    ("holds_never", "never: {test}", "hiçbir yürütmede: {test}"),
    (
        "holds_eventually",
        "eventually: {test}",
        "her yürütmede er geç: {test}",
    ),
    ("expected_value", "expected {value}", "{value}"),
    (
        "probability_of_test",
        "probability that {test}: {value}",
        "{test} olasılığı: {value}",
    ),
    (
        "least_probability_of_test",
        "least probability over schedulers that {test}: {value}",
        "zamanlayıcılar arasında en düşük {test} olasılığı: {value}",
    ),
    (
        "greatest_probability_of_test",
        "greatest probability over schedulers that {test}: {value}",
        "zamanlayıcılar arasında en yüksek {test} olasılığı: {value}",
    ),
    (
        "expected_inside_ci",
        "expected {value} inside the {level} CI [{lo}, {hi}]",
        "{value}, {level} güven aralığı [{lo}, {hi}] içinde",
    ),
    (
        "expected_inside_level",
        "expected {value} inside the {level} CI",
        "{value}, {level} güven aralığı içinde",
    ),
    ("test_exact_text", ", exact text", ", tam metin"),
    (
        "test_ratio_in",
        ", ratio in [{lo}, {hi}]",
        ", oran [{lo}, {hi}] içinde",
    ),
    ("test_slack", ", slack {slack}", ", pay {slack}"),
    ("empty_value", "empty", "boş"),
    (
        "outcome_of",
        "outcome {k} of {of} ({executions} executions)",
        "{of} sonucun {k}. sonucu ({executions} yürütme)",
    ),
    (
        "outcome_of_one",
        "outcome {k} of {of} (1 execution)",
        "{of} sonucun {k}. sonucu (1 yürütme)",
    ),
    (
        "outcome_of_uncounted",
        "outcome {k} of {of} (executions not counted: a loop without end)",
        "{of} sonucun {k}. sonucu (yürütmeler sayılmadı: sonu olmayan bir döngü)",
    ),
    (
        "min_of_executions",
        "min of {executions} executions",
        "{executions} yürütmenin en küçüğü",
    ),
    ("min_of_one", "min of 1 execution", "1 yürütmenin en küçüğü"),
    (
        "max_of_executions",
        "max of {executions} executions",
        "{executions} yürütmenin en büyüğü",
    ),
    ("max_of_one", "max of 1 execution", "1 yürütmenin en büyüğü"),
    (
        "least_over_schedulers",
        "least over schedulers: {value}",
        "zamanlayıcılar arasında en düşük: {value}",
    ),
    (
        "greatest_over_schedulers",
        "greatest over schedulers: {value}",
        "zamanlayıcılar arasında en yüksek: {value}",
    ),
    (
        "mean_of_executions",
        "mean of {executions} execution(s), by probability",
        "{executions} yürütmenin olasılıkla ağırlıklı ortalaması",
    ),
    (
        "percentile_of_executions",
        "{p}th percentile of {executions} execution(s), by probability",
        "{executions} yürütmenin olasılıkla ağırlıklı {p}. yüzdeliği",
    ),
    (
        "executions_bounded",
        "bounded: not every execution was seen (explore.md says where the search stopped)",
        "sınırlı: her yürütme görülmedi (aramanın nerede durduğunu explore.md söyler)",
    ),
    (
        "no_point_explored",
        "no point explored",
        "hiçbir nokta taranmadı",
    ),
    ("line_number", "line {line}", "satır {line}"),
    ("every_point", "every point", "her nokta"),
    ("entity_named", "entity {entity}", "varlık {entity}"),
    ("column_parameter", "parameter", "parametre"),
    ("column_value", "value", "değer"),
    ("column_set", "set", "nerede"),
    ("column_meaning", "meaning", "anlamı"),
    (
        "swept_values",
        "swept: {count} values",
        "taranır: {count} değer",
    ),
    ("set_by_sweep", "sweep", "tarama"),
    (
        "derived_values",
        "; at the points in order: {values}",
        "; noktalarda sırasıyla: {values}",
    ),
    ("set_by_default", "default", "varsayılan"),
    (
        "more_values",
        ", … ({count} in all)",
        ", … (toplam {count})",
    ),
    (
        "first_rows",
        "The first {shown} of {total} rows; ",
        "{total} satırın ilk {shown} tanesi; ",
    ),
    (
        "csv_holds_all",
        " and the CSV files hold them all.",
        " ve CSV dosyaları hepsini tutar.",
    ),
    (
        "no_charts",
        "This config draws no chart.",
        "Bu yapılandırma grafik çizmez.",
    ),
    // What site.js adds to a line or bar chart (src/site/live.rs).
    ("chart_series", "series", "seri"),
    ("chart_every_series", "every series", "tüm seriler"),
    ("chart_low_end", "low end", "alt uç"),
    ("chart_high_end", "high end", "üst uç"),
    (
        "chart_keys",
        "the chart's points: the arrow keys move between them",
        "grafiğin noktaları: ok tuşları aralarında gezdirir",
    ),
    (
        "chart_csv",
        "save its points as CSV",
        "noktalarını CSV olarak kaydet",
    ),
    (
        "executions_intro",
        "Every execution of each point, explored (",
        "Her noktanın her yürütmesi, tarandı (",
    ),
    ("executions_outcomes", ", every outcome in ", ", her sonuç "),
    (
        "executions_claims",
        "). Each claim an execution decides, by the execution that decides it (the shortest, or a scheduler's most likely):",
        " dosyasında). Bir yürütmenin belirlediği her iddia, onu belirleyen yürütmeyle (en kısası ya da bir zamanlayıcının en olası yürütmesi):",
    ),
    ("trace_caption", "claim {n} · ", "iddia {n} · "),
    ("claim_link", "claim {n}", "iddia {n}"),
    // A lesson's page.
    ("all_match", "ALL MATCH", "HEPSİ TUTUYOR"),
    ("drifted_badge", "DRIFTED", "KAYDI"),
    (
        "lesson_summary",
        " {file}: {count} marked region(s) checked — {passed} passed, {failed} failed.",
        " {file}: işaretli {count} bölge denetlendi — {passed} tuttu, {failed} kaydı.",
    ),
    (
        "lesson_help",
        "Every marked number, table and chart below was re-run and compared with the text at the precision its author wrote. Hover over or focus (Tab) a marked value to see where it comes from.",
        "Aşağıda işaretli her sayı, tablo ve grafik yeniden koşuldu ve metinle, yazarının yazdığı duyarlıkta karşılaştırıldı. İşaretli bir değerin nereden geldiğini görmek için üzerine gelin ya da (Tab ile) odaklayın.",
    ),
    ("heading_drifted", "Drifted regions", "Kayan bölgeler"),
    (
        "marks_first",
        "This page marks the first {count} inline regions.",
        "Bu sayfa ilk {count} satır içi bölgeyi işaretler.",
    ),
    ("lesson_configs", "Configs: ", "Yapılandırmalar: "),
    ("block_checked", "checked", "denetlendi"),
    ("drift_flag", "drift", "kaydı"),
    ("block_drifted", "drifted", "kaydı"),
    ("matches_run", "matches the run", "koşuyla tutuyor"),
    ("drifted_from_run", "drifted from the run", "koşudan kaydı"),
    (
        "matches_executions",
        "matches every execution",
        "her yürütmeyle tutuyor",
    ),
    (
        "drifted_from_executions",
        "drifted from the executions",
        "yürütmelerden kaydı",
    ),
    ("term_at", "at", "nokta"),
    (
        "every_row_selected",
        "every row it selects (one value)",
        "seçtiği her satır (tek değer)",
    ),
    (
        "every_row_shown",
        "every row it selects",
        "seçtiği her satır",
    ),
    ("term_run", "run", "koşu"),
    ("term_explored", "every execution", "her yürütme"),
    (
        "configs_executions",
        "every execution on the config's page",
        "yapılandırma sayfasında her yürütme",
    ),
    ("term_written", "written", "yazılan"),
    (
        "written_precision",
        " (the written digits allow {precision})",
        " (yazılan basamakların payı {precision})",
    ),
    (
        "theory_interval",
        " (a theory's value: inside the {level} interval [{lo}, {hi}] of the mean of {runs} runs)",
        " (bir kuramın değeri: {runs} koşunun ortalamasının {level} güven aralığı [{lo}, {hi}] içinde)",
    ),
    ("term_image", "image", "görüntü"),
    ("term_see", "see", "bakınız"),
    (
        "configs_table",
        "the config's table",
        "yapılandırmanın tablosu",
    ),
    (
        "configs_chart",
        "the chart on the config's page",
        "yapılandırma sayfasındaki grafik",
    ),
    ("term_checked_by", "checked by", "denetleyen"),
    (
        "parameter_set_at",
        "a parameter, set at ",
        "bir parametre, ayarlandığı yer: ",
    ),
    (
        "config_line",
        "config line {line}",
        "yapılandırma satırı {line}",
    ),
    (
        "parameter_default",
        "a parameter at its default (the config does not set it)",
        "varsayılan değerinde bir parametre (yapılandırma ayarlamıyor)",
    ),
    (
        "page_check_alone",
        "this page's check alone: no claim of the config reads this value here",
        "yalnız bu sayfanın denetimi: yapılandırmanın hiçbir iddiası bu değeri burada okumuyor",
    ),
    ("claim_named", "claim ", "iddia "),
    ("claim_at", " at ", ", "),
    ("table_named", "table {config}", "tablo {config}"),
    (
        "chart_named",
        "chart {config} {chart}",
        "grafik {config} {chart}",
    ),
    // A lesson's image the page does not show: why, after its alt text.
    (
        "image_from_network",
        "{src}: the site shows only the lesson's own image files, never one from the network",
        "{src}: site yalnız dersin kendi görüntü dosyalarını gösterir, ağdan hiçbirini göstermez",
    ),
    ("image_no_file", "no such file", "böyle bir dosya yok"),
    (
        "image_folder_unreadable",
        "the lessons' folder cannot be read",
        "derslerin klasörü okunamıyor",
    ),
    (
        "image_outside",
        "outside the lessons' folder, so not copied into the site",
        "derslerin klasörünün dışında, bu yüzden siteye kopyalanmadı",
    ),
    (
        "image_not_an_image",
        "not an image ({extensions})",
        "bir görüntü değil ({extensions})",
    ),
    (
        "image_unreadable",
        "cannot be read: {error}",
        "okunamıyor: {error}",
    ),
    (
        "image_in_table",
        "an image in a table is not shown",
        "tablodaki bir görüntü gösterilmez",
    ),
    // An explored execution's step chart, for a reader who cannot see it.
    (
        "trace_alt",
        "{title}: the execution deciding claim {n}",
        "{title}: iddia {n} için belirleyici yürütme",
    ),
    // The index (the English locale's words: it lists pages of every language).
    ("all_pass", "ALL PASS", "HEPSİ GEÇTİ"),
    ("failures_badge", "FAILURES", "HATALAR"),
    (
        "totals_line",
        "{passed} passed, {failed} failed",
        "{passed} geçti, {failed} kaldı",
    ),
    (
        "index_summary",
        "Claims: {claims_passed} of {claims} hold, in {configs} config(s). Lesson regions: {regions_passed} of {regions} match the run, in {lessons} lesson(s).",
        "İddialar: {claims} iddianın {claims_passed} tanesi tutuyor, {configs} yapılandırmada. Ders bölgeleri: {regions} bölgenin {regions_passed} tanesi koşuyla tutuyor, {lessons} derste.",
    ),
    (
        "lessons_not_checked",
        "The lessons were not checked: --seed replaces the seeds their figures come from.",
        "Dersler denetlenmedi: --seed, sayılarının geldiği tohumların yerini alıyor.",
    ),
    ("heading_failures", "Failures", "Hatalar"),
    (
        "heading_configs",
        "Configs ({count})",
        "Yapılandırmalar ({count})",
    ),
    ("heading_lessons", "Lessons ({count})", "Dersler ({count})"),
    ("column_title", "title", "başlık"),
    ("column_rows", "rows", "satırlar"),
    ("column_claims_passed", "claims passed", "tutan iddialar"),
    ("column_failed", "failed", "tutmayan"),
    ("column_lesson", "lesson", "ders"),
    ("column_regions_passed", "regions passed", "tutan bölgeler"),
    (
        "lesson_reader_note",
        "Every marked number, table and chart comes from a simulation coordsim re-ran for this page. Tap, hover over or focus (Tab) one to see where it comes from.",
        "İşaretli her sayı, tablo ve grafik, coordsim'in bu sayfa için yeniden koştuğu bir simülasyondan gelir. Nereden geldiğini görmek için birine dokunun, üzerine gelin ya da (Tab ile) odaklayın.",
    ),
    (
        "lesson_author_view",
        "The author's view: every region's check",
        "Yazarın görünümü: her bölgenin denetimi",
    ),
    (
        "lesson_reader_view",
        "The reader's view: no check shown",
        "Okurun görünümü: denetim gösterilmez",
    ),
    (
        "lesson_fragment",
        "The lesson as one fragment to paste into a course's page",
        "Bir ders sayfasına yapıştırılacak tek parça olarak ders",
    ),
    ("fragment_size", " ({kb} kB)", " ({kb} kB)"),
    ("block_source", "source", "kaynak"),
    (
        "slider_heading",
        "One point of the sweep",
        "Taramanın bir noktası",
    ),
    ("slider_row", "Its row of the table", "Tablodaki satırı"),
    ("slider_timeline", "Its timeline", "Zaman çizelgesi"),
    (
        "slider_outcomes",
        "Its outcomes over every execution",
        "Her yürütmedeki sonuçları",
    ),
    (
        "slider_first_outcomes",
        "The first {shown} of {total} outcomes; outcomes.csv holds them all.",
        "{total} sonucun ilk {shown} tanesi; outcomes.csv hepsini tutar.",
    ),
    ("column_outcome", "outcome", "sonuç no."),
    ("column_executions", "executions", "yürütme"),
    ("column_probability", "probability", "olasılık"),
    // The explorer on a config's page (src/site/explorer.rs, explorer.js).
    (
        "explorer_heading",
        "Play an execution",
        "Bir yürütmeyi oyna",
    ),
    (
        "explorer_cycle",
        "An execution of a point here can come back to a state it was in: the explorer leaves such a point out; the traces above show its deciding executions.",
        "Buradaki bir noktanın bir yürütmesi bulunduğu bir duruma geri dönebiliyor: gezgin böyle bir noktayı dışarıda bırakır; yukarıdaki izler onun belirleyici yürütmelerini gösterir.",
    ),
    (
        "explorer_too_large",
        "A point here is too large for the explorer (more than {max} states, states past the memory budget, or a graph past {kb} kB with the others): it is left out so that the page stays light; the traces above show its deciding executions.",
        "Buradaki bir nokta gezgin için çok büyük ({max} durumdan fazla, bellek sınırını aşan durumlar ya da ötekilerle birlikte {kb} kB'ı aşan bir çizge): sayfa hafif kalsın diye dışarıda bırakılır; yukarıdaki izler onun belirleyici yürütmelerini gösterir.",
    ),
    (
        "explorer_intro",
        "Every state an execution can reach is here. Pick the next event with its button; back and forward (or the keys b and f) step along what you did, and the tree keeps every branch you tried.",
        "Bir yürütmenin varabileceği her durum burada. Sonraki olayı düğmesiyle seçin; geri ve ileri (ya da b ve f tuşları) yaptıklarınız boyunca adım atar, ağaç denediğiniz her dalı saklar.",
    ),
    ("explorer_point", "point", "nokta"),
    ("explorer_time", "time {t} ms", "zaman {t} ms"),
    ("explorer_actors", "actors", "aktörler"),
    ("explorer_resources", "resources", "kaynaklar"),
    ("explorer_free", "free events", "serbest olaylar"),
    ("explorer_back", "back", "geri"),
    ("explorer_forward", "forward", "ileri"),
    ("explorer_restart", "start again", "baştan başla"),
    ("explorer_history", "history", "geçmiş"),
    ("explorer_start", "start", "başlangıç"),
    ("explorer_outcomes", "outcomes", "sonuçlar"),
    ("explorer_outcome", "outcome {k}", "{k}. sonuç"),
    (
        "explorer_show",
        "show an execution that ends here",
        "burada biten bir yürütmeyi göster",
    ),
    (
        "explorer_claim",
        "claim {n}: step through its execution",
        "{n}. iddia: yürütmesinde adım adım ilerle",
    ),
    (
        "explorer_guide",
        "next step of claim {n}",
        "{n}. iddianın sonraki adımı",
    ),
    (
        "explorer_ended",
        "The execution has ended: outcome {k}.",
        "Yürütme bitti: {k}. sonuç.",
    ),
    (
        "explorer_decides",
        "This is the outcome that decides claim {n}.",
        "Bu, {n}. iddiayı belirleyen sonuçtur.",
    ),
    (
        "explorer_meets",
        "claim {n}: this end meets its test",
        "{n}. iddia: bu son, sınamasını karşılıyor",
    ),
    (
        "explorer_misses",
        "claim {n}: this end does not meet its test",
        "{n}. iddia: bu son, sınamasını karşılamıyor",
    ),
    ("explorer_not_started", "not started", "başlamadı"),
    (
        "explorer_idle",
        "finished or between repetitions",
        "bitti ya da iki tekrar arasında",
    ),
    (
        "explorer_crashed",
        "crashed or stopped",
        "çöktü ya da durdu",
    ),
    ("explorer_waiting", "waiting", "bekliyor"),
    ("explorer_held", "held by {a}", "{a} tutuyor"),
    ("explorer_unheld", "free", "serbest"),
    ("explorer_waiters", "waiting: {a}", "bekleyenler: {a}"),
    (
        "explorer_no_probability",
        "no probability: a free order",
        "olasılık yok: serbest bir sıra",
    ),
    // The explorer in a lesson (`explorer NAME`, src/site/regions.rs).
    (
        "lesson_explorer_cycle",
        "An execution of this point can come back to a state it was in: the explorer cannot play it here; the config's page shows its deciding executions.",
        "Bu noktanın bir yürütmesi bulunduğu bir duruma geri dönebiliyor: gezgin onu burada oynatamaz; yapılandırmanın sayfası onun belirleyici yürütmelerini gösterir.",
    ),
    (
        "lesson_explorer_too_large",
        "This point is too large for the explorer (more than {max} states, states past the memory budget, or a graph past {kb} kB with the config's other points): it is left out so that the page stays light; the config's page shows its deciding executions.",
        "Bu nokta gezgin için çok büyük ({max} durumdan fazla, bellek sınırını aşan durumlar ya da yapılandırmanın öteki noktalarıyla birlikte {kb} kB'ı aşan bir çizge): sayfa hafif kalsın diye dışarıda bırakılır; yapılandırmanın sayfası onun belirleyici yürütmelerini gösterir.",
    ),
    (
        "lesson_explorer_point",
        "the config's first point",
        "yapılandırmanın ilk noktası",
    ),
    (
        "see_explorer",
        "the explorer on the config's page",
        "yapılandırma sayfasındaki gezgin",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `say(…, "…")` of the page modules, its English phrase.
    fn phrases(source: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut rest = source;
        while let Some(i) = rest.find("say(") {
            rest = &rest[i + 4..];
            // The phrase is the call's first string literal (after the locale).
            let Some(open) = rest.find('"') else { break };
            let close_call = rest.find(')').unwrap_or(rest.len());
            if open > close_call {
                continue;
            }
            let text = &rest[open + 1..];
            let Some(end) = text.find('"') else { break };
            out.push(&text[..end]);
            rest = &text[end..];
        }
        out
    }

    #[test]
    fn every_phrase_of_the_pages_has_its_turkish() {
        let sources = [
            include_str!("frame.rs"),
            include_str!("config_page.rs"),
            include_str!("live.rs"),
            include_str!("claims_table.rs"),
            include_str!("lesson_page.rs"),
            include_str!("index.rs"),
            include_str!("explorer.rs"),
        ];
        let mut seen = 0;
        for source in sources {
            for phrase in phrases(source) {
                seen += 1;
                assert!(
                    WORDS.iter().any(|(_, en, _)| *en == phrase),
                    "no key and Turkish for {phrase:?}: add it to WORDS"
                );
            }
        }
        assert!(
            seen >= 40,
            "the pages say their words through `say`: {seen}"
        );
    }

    /// (Only where debug assertions are on: a release build shows the English.)
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "has no key in WORDS")]
    fn a_phrase_with_no_key_stops_a_test_build() {
        say(Words::built_in(Locale::En), "a phrase nobody keyed");
    }

    #[test]
    fn each_phrase_and_key_is_given_once_with_its_placeholders() {
        let tr = Words::built_in(Locale::Tr);
        let en = Words::built_in(Locale::En);
        for (i, (key, english, turkish)) in WORDS.iter().enumerate() {
            assert!(
                WORDS[..i].iter().all(|(_, e, _)| e != english),
                "{english:?} twice"
            );
            assert!(WORDS[..i].iter().all(|(k, _, _)| k != key), "{key:?} twice");
            assert!(
                !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{key:?}: a key is lowercase words joined by `_`"
            );
            assert_eq!(
                placeholders(english),
                placeholders(turkish),
                "{english:?}: its placeholders"
            );
            assert_eq!(say(tr, english), *turkish);
            assert_eq!(say(en, english), *english);
        }
    }

    #[test]
    fn docs_list_every_key_with_its_english_and_turkish() {
        // docs/config.md's table of site words, row by row as WORDS holds them: a course
        // author reads the keys there.
        let docs = include_str!("../../docs/config.md");
        let start = docs
            .find("| site word key |")
            .expect("docs/config.md lists the site words");
        let rows: Vec<&str> = docs[start..]
            .lines()
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .collect();
        assert_eq!(rows.len(), WORDS.len(), "one row per key");
        for (row, (key, english, turkish)) in rows.iter().zip(WORDS) {
            let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
            let unquote = |c: &str| c.trim_matches('`').replace("\\|", "|");
            assert_eq!(cells.len(), 3, "{row}");
            assert_eq!(unquote(cells[0]), *key, "{row}");
            assert_eq!(unquote(cells[1]), english.trim(), "{row}");
            assert_eq!(unquote(cells[2]), turkish.trim(), "{row}");
        }
    }
}
