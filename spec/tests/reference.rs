//! The reference protocol's layout files: valid, canonically formatted, embedded completely,
//! and their models reviewed as snapshots (a model that changes is a spec change).

use ackwire_spec::model::Spec;
use std::path::PathBuf;

fn reference() -> (Spec, Vec<ackwire_spec::Source>) {
    ackwire_spec::load(&[ackwire_spec::reference_protocol_dir().to_path_buf()])
        .unwrap_or_else(|e| panic!("the reference protocol must be valid:\n{e}"))
}

#[test]
fn every_reference_file_is_embedded() {
    let (spec, _) = reference();
    let on_disk: Vec<String> = spec
        .files
        .iter()
        .map(|f| {
            PathBuf::from(&f.name)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let sources = ackwire_spec::reference_sources();
    // A coded frame's tables file is embedded beside its layout, as it is on the disk.
    for t in sources.iter().filter(|s| s.name.ends_with(".tables")) {
        let on_disk = std::fs::read_to_string(
            ackwire_spec::reference_protocol_dir()
                .join(PathBuf::from(&t.name).file_name().unwrap()),
        )
        .unwrap();
        assert_eq!(on_disk, t.text, "{} differs from its embedded copy", t.name);
    }
    let embedded: Vec<String> = sources
        .iter()
        .filter(|s| !s.name.ends_with(".tables"))
        .map(|s| {
            PathBuf::from(&s.name)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(
        on_disk, embedded,
        "add new layout files to reference_sources()"
    );
    let from_embedded = ackwire_spec::reference_spec().unwrap();
    for (a, b) in spec.files.iter().zip(&from_embedded.files) {
        assert_eq!(
            a.items, b.items,
            "{} differs from its embedded copy",
            a.name
        );
    }
}

#[test]
fn reference_files_are_canonically_formatted() {
    let (_, sources) = reference();
    for source in &sources {
        let file = ackwire_spec::parse::parse_file(&source.name, &source.text).unwrap();
        let formatted = ackwire_spec::fmt::format_file(&file);
        assert_eq!(
            formatted, source.text,
            "{} is not canonically formatted: run `ackwire fmt`",
            source.name
        );
    }
}

#[test]
fn models_of_reference_files() {
    let (spec, _) = reference();
    for file in &spec.files {
        let name = PathBuf::from(&file.name)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let mut file = file.clone();
        // The snapshot should not depend on where the checkout is.
        file.name = format!("spec/protocol/{name}.wire");
        insta::assert_json_snapshot!(format!("model_{name}"), file);
    }
}

#[test]
fn the_model_validates_against_its_json_schema() {
    let (spec, _) = reference();
    let schema = serde_json::to_value(schemars::schema_for!(Spec)).unwrap();
    let instance = serde_json::to_value(&spec).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // And the schema is not vacuous: a model with a wrong shape is refused.
    let mut broken = instance.clone();
    broken["files"][0]["items"][0]["item"] = serde_json::json!("nonsense");
    assert!(!validator.is_valid(&broken));
}

#[test]
fn the_json_model_reads_back() {
    let (spec, _) = reference();
    let json = serde_json::to_string(&spec).unwrap();
    let back: Spec = serde_json::from_str(&json).unwrap();
    // A coded frame's tables are read from their file, not carried in the JSON form: the
    // form reads back to itself.
    assert_eq!(serde_json::to_string(&back).unwrap(), json);
    assert!(json.contains("acked_coded.tables"));
}

#[test]
fn max_header_len_follows_from_the_layout() {
    // DG-7: MAX_HEADER_LEN follows from the layout (51 with 10-byte varints and 3-byte parts
    // and count).
    let (spec, _) = reference();
    let index = ackwire_spec::index::Index::new(&spec);
    assert_eq!(index.max_offset("Datagram", "updates"), Some(51));
}
