//! What each built-in model's parameters mean, in Turkish: a Turkish config page says it in
//! its own language ([`Model::param_meaning`]). The models declare their parameters in
//! English (their doc comments, `coordsim models NAME`); the translations live here, one
//! table for every model, so that a test can hold it to every declaration.
//!
//! [`Model::param_meaning`]: coordsim_model::Model::param_meaning

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
];

/// What parameter `key` of model `model` means in `language`: Turkish (`"tr"`) from the
/// table above; any other language, none (the declared English is shown).
pub(crate) fn param_meaning(model: &str, key: &str, language: &str) -> Option<&'static str> {
    if language != "tr" {
        return None;
    }
    TURKISH
        .iter()
        .find(|(m, k, _)| *m == model && *k == key)
        .map(|(_, _, turkish)| *turkish)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every built-in model's every parameter has a Turkish meaning, not its English one,
    /// and the table names no parameter a model does not declare (a renamed one).
    #[test]
    fn every_built_in_parameter_has_its_turkish_meaning() {
        let registry = crate::registry();
        let mut declared = Vec::new();
        for model in registry.models() {
            for param in model.params() {
                let turkish = model.param_meaning(param.key, "tr");
                assert!(
                    turkish.is_some_and(|t| t != param.meaning.trim()),
                    "{}'s `{}` has no Turkish meaning in models/src/turkish.rs",
                    model.name(),
                    param.key
                );
                assert_eq!(model.param_meaning(param.key, "en"), None);
                declared.push((model.name(), param.key));
            }
        }
        for (model, key, _) in TURKISH {
            assert!(
                declared.contains(&(*model, *key)),
                "models/src/turkish.rs translates {model}'s `{key}`, which it does not declare"
            );
        }
    }
}
