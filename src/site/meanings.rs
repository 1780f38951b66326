//! What each built-in model's parameters mean, in Turkish: a Turkish config page's
//! parameter table says it in the page's language. The models declare their parameters in
//! English (`coordsim models`, docs/models.md); the translations live here, beside the
//! site's other words, so a model stays one English declaration. A test fails when a
//! built-in parameter has no Turkish meaning here, or one left in English.
//!
//! A model of one's own (docs/writing-a-model.md) has none here: its page shows its English
//! meaning, as does a page whose course's locale file puts it in another language.

use coordsim_model::ParamSpec;

use super::words::Words;
use crate::locale::Locale;

/// The model whose parameters are the config's own (`[params]`): each is "a parameter of
/// this scenario" of its kind, but for its tie rule.
const SCENARIO: &str = "scenario";

/// `(model, parameter, Turkish meaning)` for every built-in model's parameters.
const TURKISH: &[(&str, &str, &str)] = &[
    ("single_writer_queue", "clients", "istemci sayısı"),
    (
        "single_writer_queue",
        "requests_per_client",
        "her istemcinin gönderdiği istek sayısı",
    ),
    (
        "single_writer_queue",
        "interarrival_ms",
        "bir istemcinin iki isteği arasındaki süre (`poisson` için ortalaması)",
    ),
    (
        "single_writer_queue",
        "client_offset_ms",
        "istemci `c` (0'dan sayılır) ilk isteğini `c × client_offset_ms` anında gönderir",
    ),
    (
        "single_writer_queue",
        "service_ms",
        "istek başına hizmet süresi (rastgele bir `service` için ortalaması)",
    ),
    (
        "single_writer_queue",
        "arrivals",
        "`schedule` (sabit aralıklar) ya da rastgele aralıklar: `poisson` (üstel), `uniform`, `lognormal`, `gamma` (ortalaması `interarrival_ms`, değişim katsayısı `interarrival_cv`), `trace` (`arrival_trace` içinden çekilir)",
    ),
    (
        "single_writer_queue",
        "service",
        "`fixed` ya da rastgele: `exponential`, `uniform`, `lognormal`, `gamma` (ortalaması `service_ms`, değişim katsayısı `service_cv`), `empirical` (`service_trace` içinden çekilir)",
    ),
    (
        "single_writer_queue",
        "instances",
        "anahtar bu kadar örneğe bölünür; istemci `c`, `c mod instances` numaralı örneğe gider",
    ),
    (
        "single_writer_queue",
        "service_cv",
        "hizmet sürelerinin değişim katsayısı (`uniform`, `lognormal`, `gamma`; 0 sabit demektir)",
    ),
    (
        "single_writer_queue",
        "service_trace",
        "`empirical` için gözlenmiş hizmet süreleri (ms): bir liste ya da { file = \"x.csv\", column = \"ms\" } (yol, yapılandırma dosyasına göre)",
    ),
    (
        "single_writer_queue",
        "interarrival_cv",
        "bir istemcinin istekleri arasındaki sürelerin değişim katsayısı (`uniform`, `lognormal`, `gamma`)",
    ),
    (
        "single_writer_queue",
        "arrival_trace",
        "`arrivals = \"trace\"` için gözlenmiş aralıklar (ms): bir liste ya da bir CSV'nin { file, column } sütunu",
    ),
    (
        "single_writer_queue",
        "warmup_ms",
        "bundan önce gelen istekler hiçbir bekleme istatistiğine girmez (`requests` onları yine sayar)",
    ),
    ("shared_store_rmw", "clients", "istemci sayısı"),
    (
        "shared_store_rmw",
        "increments_per_client",
        "her istemcinin art arda yaptığı artırma sayısı",
    ),
    (
        "shared_store_rmw",
        "client_offset_ms",
        "istemci `c` (0'dan sayılır) ilk işlemine `c × client_offset_ms` anında başlar",
    ),
    ("shared_store_rmw", "read_ms", "okuma adımının süresi"),
    (
        "shared_store_rmw",
        "compute_ms",
        "hesaplama adımının süresi",
    ),
    ("shared_store_rmw", "write_ms", "yazma adımının süresi"),
    (
        "shared_store_rmw",
        "guard",
        "`none`, `lock` (kötümser) ya da `cas` (iyimser)",
    ),
    (
        "shared_store_rmw",
        "tie_order",
        "eşit zamanlarda (bir eşitlik kuralı): `program_order` (bir istemci kendi yazdığını görür; o andaki başkalarının yazdıklarını kaçırır), `reads_first` (her okuma o andaki bütün yazmaları kaçırır: dersin kuralı) ya da `writes_first`",
    ),
    (
        "shared_store_rmw",
        "max_retries",
        "yalnız `cas`: bir istemci bir artırmayı, bu kadar kez reddedilince bırakır",
    ),
    (
        "edge_placement",
        "edges",
        "kenarlar: adı, yükü (istek) ve her yerleşim için gidiş-dönüş süresi",
    ),
    (
        "edge_placement",
        "placement",
        "değerlendirilecek yerleşim (karşılaştırmak için taranır); her kenarın `rtt_ms` anahtarlarından biri",
    ),
    (
        "edge_placement",
        "per_edge_placements",
        "her kenarın kendi nesnesi olduğu yerleşimler (anahtar kenar başına bölünür)",
    ),
    (
        "edge_placement",
        "local_ms",
        "aynı işin, aynı kenardan, koordinasyonsuz süresi",
    ),
    (
        "edge_placement",
        "service_ms",
        "nesnedeki hizmet süresi; 0'ın üstünde kuyruk beklemesi ekler",
    ),
    (
        "edge_placement",
        "duration_ms",
        "her kenarın istekleri bu pencereye eşit aralıklarla yayılır",
    ),
    (
        "scenario_fit",
        "service_ms",
        "bir örnekte istek başına hizmet süresi (kapasite = saniyede 1000 / service_ms)",
    ),
    (
        "scenario_fit",
        "scenarios",
        "senaryolar: adı, anahtarı, örnek sayısı, rate_per_s (toplam), long_job_ms (0 = yok)",
    ),
    (
        "scenario_fit",
        "horizon_ms",
        "her senaryonun denetim koşusunda benzetilen süre",
    ),
    (
        "lock_queue",
        "appliers",
        "uygulayıcı sayısı; adları `a`, `b`, `c`, …",
    ),
    (
        "lock_queue",
        "names",
        "isteğe bağlı uygulayıcı adları, her uygulayıcıya bir tane (boşsa `a`, `b`, …)",
    ),
    (
        "lock_queue",
        "start_ms",
        "her uygulayıcının başladığı an: bir sayı (hepsine) ya da bir liste (her uygulayıcıya bir tane)",
    ),
    (
        "lock_queue",
        "hold_ms",
        "bir uygulamanın ne kadar sürdüğü: bir sayı ya da bir liste",
    ),
    (
        "lock_queue",
        "items",
        "her uygulayıcının oluşturduğu kaynaklar: bir sayı ya da bir liste",
    ),
    (
        "lock_queue",
        "lock",
        "`poll`, `none`, `queue` (bekleten, sırayla devreden FIFO) ya da `lease`",
    ),
    (
        "lock_queue",
        "poll_ms",
        "başarısız bir denemeden sonra yeniden deneme aralığı",
    ),
    (
        "lock_queue",
        "give_up_after_ms",
        "bir uygulayıcı, başlangıç + bu süreden sonraki başarısız bir denemede vazgeçer (`queue`: başlangıç + bu sürede hâlâ bekliyorsa)",
    ),
    (
        "lock_queue",
        "stale_lock_at_start",
        "çökmüş bir sahibin bıraktığı kilit kaydı 0 anında vardır",
    ),
    (
        "lock_queue",
        "crash",
        "kilidi alıp durumu okuduktan hemen sonra ölen uygulayıcıların adları",
    ),
    (
        "lock_queue",
        "crash_items",
        "çöken bir uygulayıcının ölmeden önce oluşturduğu kaynaklar",
    ),
    (
        "lock_queue",
        "unlock_at_ms",
        "bir operatörün kilit kaydını elle sildiği anlar",
    ),
    (
        "lock_queue",
        "lease_ms",
        "yalnız `lease`: bundan eski bir kilit kaydı devralınabilir",
    ),
    (
        "lock_queue",
        "fencing",
        "her kilit alımı artan bir jeton alır; depo, kabul ettiği bir jetondan küçük jetonlu yazmayı reddeder",
    ),
    (
        "lock_queue",
        "read_before_lock",
        "yanlış sıra: durumu başlangıçta, kilidi denemeden önce okur",
    ),
    (
        "lock_queue",
        "state",
        "`remote`: paylaşılan tek bir kayıt; `local`: her uygulayıcının kendi kaydı (ve kilidi)",
    ),
    ("saga", "mode", "`no_compensation` ya da `saga`"),
    (
        "saga",
        "requests",
        "aynı dünyada art arda çalışan `[book, member]` çiftleri",
    ),
    (
        "saga",
        "catalog_unreachable",
        "telafi çağrısı (rafa geri koy) başarısız olur",
    ),
    (
        "saga",
        "step_ms",
        "her çağrının süresi; bir çağrı, sonunda etkisini gösterir",
    ),
    ("saga", "books", "kataloğun kitapları"),
    ("saga", "members", "üyeler"),
    (
        "saga",
        "random_requests",
        "rastgele türev: her biri yeni bir kitap ve üye için bu kadar istek (`requests` yerine)",
    ),
    (
        "saga",
        "add_loan_failure_probability",
        "rastgele türev: *ödünç ekle* çağrısının başarısız olma olasılığı",
    ),
    (
        "saga",
        "compensation_failure_probability",
        "rastgele türev: bir telafinin başarısız olma olasılığı",
    ),
    (
        "outbox",
        "loans",
        "`[book, member]`: her biri tek bir işlemde kitabı ödünçte işaretler ve giden kutusuna bir satır yazar (kitap rafta değilse bir şey yapmaz)",
    ),
    (
        "outbox",
        "relay_runs",
        "art arda aktarıcı koşuları; `crash_after = n`: koşu n'inci teslimattan sonra, onu işaretlemeden ölür",
    ),
    (
        "outbox",
        "consumer",
        "`plain` (her teslimat uygulanır) ya da `dedup` (görülmüş bir mesaj kimliği atlanır)",
    ),
    (
        "outbox",
        "crash_probability",
        "rastgele türev: her teslimatın ardından bu olasılıkla bir çökme gelir; aktarıcı sonra yeniden başlar ve bekleyen kalmayana dek çalışır",
    ),
    (
        "outbox",
        "restart_ms",
        "rastgele türev: aktarıcı bir çökmeden bu kadar sonra yeniden başlar (senaryodaki koşular da bu kadar arayla)",
    ),
    (
        "outbox",
        "random_loans",
        "rastgele türev: sınırsız, yeni bir üyeye yeni kitapların bu kadar ödüncü (`loans` yerine)",
    ),
    ("outbox", "books", "kataloğun kitapları"),
    ("outbox", "members", "üyeler"),
    (
        "idempotency",
        "form",
        "`assign`, `increment`, `insert`, `insert_unique`, `derived_counter`, `idempotency_key` ya da `consumer`",
    ),
    (
        "idempotency",
        "repeats",
        "aynı isteğin kaç kez çalıştığı (ilk beş biçimde)",
    ),
    (
        "idempotency",
        "initial_counter",
        "`increment`: sayacın başlangıç değeri",
    ),
    (
        "idempotency",
        "requests",
        "`idempotency_key`: 4 numaralı üye için `[key, book]` çiftleri",
    ),
    (
        "idempotency",
        "deliveries",
        "`consumer`: 6 numaralı üye için, tekrarları ayıklayan bir tüketiciye teslim edilen mesaj kimlikleri",
    ),
    (
        "idempotency",
        "response_loss_probability",
        "rastgele türev: her yanıt bu olasılıkla kaybolur ve istemci yeniden dener",
    ),
    (
        "idempotency",
        "max_retries",
        "rastgele türev: kaybolan yanıtlardan sonra en çok yeniden deneme (ikisinden biri 0'ın üstündeyse her istek, `repeats` yerine, bir kez ve yeniden denemeleri kadar çalışır)",
    ),
    ("idempotency", "books", "kataloğun kitapları"),
    ("idempotency", "members", "üyeler"),
    (
        SCENARIO,
        "tie_order",
        "bir andaki olayların sırası: `fifo` (planlandıkları sırayla), `program_order`, `reads_first`, `writes_first` (bir eşitlik kuralı parametresi; bkz. docs/scenarios.md)",
    ),
];

/// A scenario parameter's kind (`ParamSpec::kind`'s short name), in Turkish.
fn kind_in_turkish(short: &str) -> &'static str {
    match short {
        "integer" => "tam sayı",
        "number" => "sayı",
        "boolean" => "doğru/yanlış",
        "string" => "metin",
        _ => "değer",
    }
}

/// What parameter `param` of model `model` means, in the page's words: its declared
/// English, or its Turkish on a Turkish page whose course puts it in no other language.
pub(crate) fn meaning(model: &str, param: &ParamSpec, words: Words<'_>) -> String {
    let english = param.meaning.trim();
    let other_language = words.course.is_some_and(|c| c.language.is_some());
    if words.locale != Locale::Tr || other_language {
        return english.to_string();
    }
    if let Some((_, _, turkish)) = TURKISH
        .iter()
        .find(|(m, key, _)| *m == model && *key == param.key)
    {
        return (*turkish).to_string();
    }
    if model == SCENARIO {
        return format!(
            "bu senaryonun bir parametresi ({})",
            kind_in_turkish(param.kind.short())
        );
    }
    english.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every built-in model's every parameter has a Turkish meaning here, not its English
    /// one, and nothing here names a parameter no model declares (a renamed one).
    #[test]
    fn every_built_in_parameter_has_its_turkish_meaning() {
        let registry = coordsim_models::registry();
        let turkish = Words {
            locale: Locale::Tr,
            course: None,
        };
        let mut declared = Vec::new();
        for model in registry.models() {
            for param in model.params() {
                let said = meaning(model.name(), param, turkish);
                assert_ne!(
                    said,
                    param.meaning.trim(),
                    "{}'s `{}` has no Turkish meaning in src/site/meanings.rs",
                    model.name(),
                    param.key
                );
                declared.push((model.name(), param.key));
            }
        }
        for (model, key, _) in TURKISH {
            assert!(
                *model == SCENARIO || declared.contains(&(*model, *key)),
                "src/site/meanings.rs translates {model}'s `{key}`, which it does not declare"
            );
        }
    }

    /// An English page, or a Turkish one a course puts in another language, keeps the
    /// declaration's words.
    #[test]
    fn english_pages_keep_the_declared_meaning() {
        let registry = coordsim_models::registry();
        let model = &registry.models()[0];
        let param = &model.params()[0];
        let english = Words {
            locale: Locale::En,
            course: None,
        };
        assert_eq!(meaning(model.name(), param, english), param.meaning.trim());
        let german = super::super::words::CourseWords {
            language: Some("de".into()),
            given: Vec::new(),
        };
        let turkish_in_german = Words {
            locale: Locale::Tr,
            course: Some(&german),
        };
        assert_eq!(
            meaning(model.name(), param, turkish_in_german),
            param.meaning.trim()
        );
    }
}
