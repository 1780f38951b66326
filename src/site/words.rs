//! The site's own words in a page's language: a config's page in its config's locale, a
//! lesson's page in its lesson's (the index, which lists pages of every language, stays
//! English). Each phrase is written in English where the page is built (`say(lc, "Claims")`)
//! and found here for Turkish; `{name}` placeholders are filled by the caller. A test reads
//! every page module and fails on a phrase with no Turkish, so a new English word cannot
//! reach a Turkish page unnoticed.

use crate::locale::Locale;

/// `en` in `locale`: itself in English, its Turkish from [`TURKISH`] in Turkish.
pub(crate) fn say(locale: Locale, en: &'static str) -> &'static str {
    match locale {
        Locale::En => en,
        Locale::Tr => TURKISH
            .iter()
            .find(|(e, _)| *e == en)
            .map_or(en, |(_, tr)| tr),
    }
}

/// Every phrase of the config and lesson pages and their frame, with its Turkish.
pub(crate) const TURKISH: &[(&str, &str)] = &[
    // The frame.
    ("coordsim report", "coordsim raporu"),
    ("Written by ", "Yazan: "),
    (
        ": every figure re-run and re-checked; no server, no network.",
        ": her sayı yeniden koşulup denetlendi; sunucu yok, ağ yok.",
    ),
    // A config's page.
    ("config", "dosya"),
    ("model", "model"),
    ("runs", "koşular"),
    ("locale", "dil"),
    ("data", "veri"),
    (
        "{points} point(s) × {replications} replication(s); {rows} row(s) in results.csv; seed {seed}",
        "{points} nokta × {replications} tekrar; results.csv'de {rows} satır; tohum {seed}",
    ),
    ("Claims", "İddialar"),
    ("Table", "Tablo"),
    ("Charts", "Grafikler"),
    ("Every execution", "Her yürütme"),
    ("Parameters", "Parametreler"),
    ("Sweep", "Tarama"),
    ("Config text", "Yapılandırma metni"),
    (
        "This config makes no claim.",
        "Bu yapılandırma hiçbir iddiada bulunmaz.",
    ),
    (
        "{passed} of {total} claim(s) hold, {failed} fail.",
        "{total} iddianın {passed} tanesi tutuyor, {failed} tanesi tutmuyor.",
    ),
    ("claim", "iddia"),
    ("verdict", "sonuç"),
    ("reads", "okuduğu"),
    ("where", "nerede"),
    ("expected", "beklenen"),
    ("measured", "ölçülen"),
    ("line", "satır"),
    ("PASS", "GEÇTİ"),
    ("FAIL", "KALDI"),
    ("the one row", "tek satır"),
    (" — worst: {row}", " — en kötü: {row}"),
    ("replications)", "tekrar)"),
    ("replication ", "tekrar "),
    ("mean of {metric}", "{metric} ortalaması"),
    ("min of {metric}", "{metric} en küçüğü"),
    ("max of {metric}", "{metric} en büyüğü"),
    (
        "at most {value} (slack {slack})",
        "en çok {value} (pay {slack})",
    ),
    ("at most {value}", "en çok {value}"),
    (
        "at least {value} (slack {slack})",
        "en az {value} (pay {slack})",
    ),
    ("at least {value}", "en az {value}"),
    (
        "{value}, the ratio in [{lo}, {hi}]",
        "{value}, oran [{lo}, {hi}] içinde",
    ),
    (
        "{value}, inside the {level} interval [{lo}, {hi}]",
        "{value}, {level} güven aralığı [{lo}, {hi}] içinde",
    ),
    ("line {line}", "satır {line}"),
    ("every point", "her nokta"),
    ("entity {entity}", "varlık {entity}"),
    ("parameter", "parametre"),
    ("value", "değer"),
    ("set", "nerede"),
    ("meaning", "anlamı"),
    ("swept: {count} values", "taranır: {count} değer"),
    ("sweep", "tarama"),
    ("default", "varsayılan"),
    (", … ({count} in all)", ", … (toplam {count})"),
    (
        "The first {shown} of {total} rows; ",
        "{total} satırın ilk {shown} tanesi; ",
    ),
    (
        " and the CSV files hold them all.",
        " ve CSV dosyaları hepsini tutar.",
    ),
    (
        "This config draws no chart.",
        "Bu yapılandırma grafik çizmez.",
    ),
    (
        "Every execution of each point, explored (",
        "Her noktanın her yürütmesi, tarandı (",
    ),
    (", every outcome in ", ", her sonuç "),
    (
        "). Each claim an execution decides, by its shortest one:",
        " dosyasında). Bir yürütmenin belirlediği her iddia, en kısasıyla:",
    ),
    ("claim {n} · ", "iddia {n} · "),
    ("claim {n}", "iddia {n}"),
    // A lesson's page.
    ("ALL MATCH", "HEPSİ TUTUYOR"),
    ("DRIFTED", "KAYDI"),
    (
        " {file}: {count} marked region(s) checked — {passed} passed, {failed} failed.",
        " {file}: işaretli {count} bölge denetlendi — {passed} tuttu, {failed} kaydı.",
    ),
    (
        "Every marked number, table and chart below was re-run and compared with the text at the precision its author wrote. Hover over or focus (Tab) a marked value to see where it comes from.",
        "Aşağıda işaretli her sayı, tablo ve grafik yeniden koşuldu ve metinle, yazarının yazdığı duyarlıkta karşılaştırıldı. İşaretli bir değerin nereden geldiğini görmek için üzerine gelin ya da (Tab ile) odaklayın.",
    ),
    ("Drifted regions", "Kayan bölgeler"),
    (
        "This page marks the first {count} inline regions.",
        "Bu sayfa ilk {count} satır içi bölgeyi işaretler.",
    ),
    ("Configs: ", "Yapılandırmalar: "),
    ("checked", "denetlendi"),
    ("drift", "kaydı"),
    ("drifted", "kaydı"),
    ("matches the run", "koşuyla tutuyor"),
    ("drifted from the run", "koşudan kaydı"),
    ("at", "nokta"),
    (
        "every row it selects (one value)",
        "seçtiği her satır (tek değer)",
    ),
    ("run", "koşu"),
    ("written", "yazılan"),
    (
        " (the written digits allow {precision})",
        " (yazılan basamakların payı {precision})",
    ),
    (
        " (a theory's value: inside the {level} interval [{lo}, {hi}] of the mean of {runs} runs)",
        " (bir kuramın değeri: {runs} koşunun ortalamasının {level} güven aralığı [{lo}, {hi}] içinde)",
    ),
    ("image", "görüntü"),
    ("see", "bakınız"),
    ("the config's table", "yapılandırmanın tablosu"),
    (
        "the chart on the config's page",
        "yapılandırma sayfasındaki grafik",
    ),
    ("checked by", "denetleyen"),
    ("a parameter, set at ", "bir parametre, ayarlandığı yer: "),
    ("config line {line}", "yapılandırma satırı {line}"),
    (
        "a parameter at its default (the config does not set it)",
        "varsayılan değerinde bir parametre (yapılandırma ayarlamıyor)",
    ),
    (
        "this page's check alone: no claim of the config reads this value here",
        "yalnız bu sayfanın denetimi: yapılandırmanın hiçbir iddiası bu değeri burada okumuyor",
    ),
    ("claim ", "iddia "),
    (" at ", ", "),
    ("table {config}", "tablo {config}"),
    ("chart {config} {chart}", "grafik {config} {chart}"),
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
            include_str!("lesson_page.rs"),
        ];
        let mut seen = 0;
        for source in sources {
            for phrase in phrases(source) {
                seen += 1;
                assert!(
                    TURKISH.iter().any(|(en, _)| *en == phrase),
                    "no Turkish for {phrase:?}: add it to TURKISH"
                );
            }
        }
        assert!(
            seen >= 40,
            "the pages say their words through `say`: {seen}"
        );
    }

    #[test]
    fn each_phrase_is_given_once_with_its_placeholders() {
        for (i, (en, tr)) in TURKISH.iter().enumerate() {
            assert!(TURKISH[..i].iter().all(|(e, _)| e != en), "{en:?} twice");
            let holes = |s: &str| {
                let mut h: Vec<String> = s
                    .split('{')
                    .skip(1)
                    .filter_map(|p| p.split_once('}').map(|(n, _)| n.to_string()))
                    .collect();
                h.sort();
                h
            };
            assert_eq!(holes(en), holes(tr), "{en:?}: its placeholders");
            assert_eq!(say(Locale::Tr, en), *tr);
            assert_eq!(say(Locale::En, en), *en);
        }
    }
}
