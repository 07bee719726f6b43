//! How long the parser takes on the hostile inputs `parse::tests::ten_megabyte_lines` feeds it:
//! lines of ten megabytes, the slowest kind being ten million one-byte tokens. The tests prove
//! the results; this measures the time, which a shared machine makes too noisy for a test. A
//! quadratic parser would show here as minutes, where a linear one takes well under a second
//! per input in a release build.
//!
//! `cargo bench -p ackwire-spec --bench parse`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

fn ten_megabyte_lines(c: &mut Criterion) {
    const N: usize = 10 * 1024 * 1024;
    let inputs = [
        ("one identifier", "a".repeat(N)),
        ("one number", format!("const A: u8 = {};", "9".repeat(N))),
        ("one comment", format!("// {}", "x".repeat(N))),
        ("white space", format!("{}record A {{}}", " ".repeat(N))),
        (
            "one-byte tokens",
            format!("record A {{ a: u8 if {}", "[".repeat(N)),
        ),
    ];
    let mut group = c.benchmark_group("parse a ten-megabyte line");
    group.sample_size(10);
    for (name, src) in &inputs {
        group.throughput(Throughput::Bytes(src.len() as u64));
        group.bench_function(*name, |b| {
            b.iter(|| black_box(ackwire_spec::parse::parse_file("t.wire", black_box(src)).is_ok()));
        });
    }
    group.finish();
}

criterion_group!(benches, ten_megabyte_lines);
criterion_main!(benches);
