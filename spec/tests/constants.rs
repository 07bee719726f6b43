//! WIRE-27: the layouts' named protocol constants reach every generated language with the same
//! value, so that a session machine in any language sizes its rings and windows alike.

/// The value of `const NAME` in one language's generated code: the digits after the first
/// `NAME` followed by `=` (or `: TYPE =`), without a type suffix.
fn value_of(code: &str, name: &str) -> Option<String> {
    code.lines().find_map(|line| {
        let at = line
            .find(&format!("{name}:"))
            .or_else(|| line.find(&format!("{name} =")))?;
        let rest = &line[at + name.len()..];
        let value = rest.split_once('=')?.1.trim_start();
        let digits: String = value.chars().take_while(char::is_ascii_digit).collect();
        (!digits.is_empty() && line.contains("const")).then_some(digits)
    })
}

#[test]
fn every_named_constant_has_one_value_in_every_language() {
    let spec = ackwire_spec::reference_spec().unwrap_or_else(|e| panic!("{e}"));
    let rust =
        ackwire_spec::gen::rust::generate(&spec, &ackwire_spec::gen::rust::Options::default());
    let ts = ackwire_spec::gen::ts::generate(&spec).remove(0).1;
    let cpp = ackwire_spec::gen::cpp::generate(&spec)
        .into_iter()
        .map(|(_, code)| code)
        .collect::<Vec<_>>()
        .join("\n");
    let cs = ackwire_spec::gen::cs::generate(&spec).remove(0).1;
    let names = [
        "SENT_RING",
        "HELD_RING",
        "EVENT_TTL",
        "CHECK_EVERY",
        "RELIABLE_ABOVE",
        "MAX_HEADER_LEN",
        "ACK_WINDOW",
        "MAX_LOST_PER_SNAPSHOT",
    ];
    for name in names {
        let values: Vec<(&str, Option<String>)> =
            [("rust", &rust), ("ts", &ts), ("cpp", &cpp), ("cs", &cs)]
                .into_iter()
                .map(|(lang, code)| (lang, value_of(code, name)))
                .collect();
        let first = values[0].1.clone();
        assert!(first.is_some(), "{name}: not in the Rust code");
        for (lang, value) in &values {
            assert_eq!(*value, first, "{name} in {lang}: {values:?}");
        }
    }
    // The values the layouts declare (MAX_HEADER_LEN derived from the datagram's layout, DG-7).
    assert_eq!(value_of(&rust, "SENT_RING").as_deref(), Some("32"));
    assert_eq!(value_of(&rust, "MAX_HEADER_LEN").as_deref(), Some("51"));
}
