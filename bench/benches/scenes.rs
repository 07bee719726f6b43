//! Codec throughput on the frames the reference scenes really send: each protocol's decode
//! and encode of one second of a scene's frames, beside postcard, bitcode and a plain memory
//! copy of the same bytes, in the same run.
//!
//! `cargo bench -p ackwire-bench --bench scenes` first runs every scene of
//! [`SceneKind::ALL`] (cube, arena, floats) through every protocol of `ackwire bench`
//! ([`capture`]: seed 1, 5% loss each way, a warm-up second then three measured seconds), keeps
//! the frames each server sent in the last second and decodes them once up front; it prints,
//! once, the frames and the mean bytes per frame of every protocol on every scene, then
//! criterion's timings. `-- --quick` gives rougher numbers in a fraction of the time; a filter
//! (`-- cube/decode`) runs one group.
//!
//! The frames, per protocol:
//!
//! - `acked`: every kind 6 [`Acked`] frame, the reliable ones too (those over
//!   `RELIABLE_ABOVE` bytes: some of the cubes', every one of the floats');
//! - `datagram`: datagram v2's unreliable [`Datagram`]s (its reliable stream's Spawn, Despawn
//!   and FullFrame, other frame types, are left out);
//! - `baseline`: NetBaseline's [`Snapshot`]s;
//! - `postcard`, `bitcode`: the peers' [`FullSnapshot`] of the whole world, one a tick.
//!
//! Groups, for each scene: `<scene>/decode` (bytes to the frame's value, which is dropped, as
//! a receiver's is once applied) and `<scene>/encode` (the value to bytes, into a `Vec` that
//! keeps its capacity between frames), each with one function per protocol, plus
//! `memcpy/acked` and `memcpy/postcard`: `copy_from_slice` of the same bytes as the acked and
//! postcard frames into a preallocated buffer, the floor a codec of that size can reach.
//! postcard goes through `to_extend` and `from_bytes`; bitcode through its derive and a
//! `bitcode::Buffer` kept between calls (its fast path; its encode copies the bytes out into
//! the `Vec`, so that every encoder ends with the frame's bytes in a `Vec`).
//!
//! Reading the numbers: one iteration is the whole set, every frame of the last second of the
//! scene (60 ticks of the cubes and floats, 20 of the arena), so criterion's `time` is the
//! codec's cost of one second of that scene for one client; divided by the protocol's frames
//! (printed at startup; memcpy's by acked's or postcard's) it is the time per frame. Every
//! function of a group reports `Throughput::Elements(entities × ticks)`, the world's entities
//! (not only those a delta frame carries) times the ticks the set covers, so `thrpt` is
//! entity-ticks per second and 1e9 over it is nanoseconds per entity per tick: the unit of
//! `ackwire bench`'s encode and decode columns, and the same work for every function of a
//! group, memcpy included, so they compare directly. Elements rather than
//! `Throughput::Bytes`: the frames differ in size by an order of magnitude and more, and
//! bytes per second would rank the bulky formats ahead for the bytes they waste. Ticks rather
//! than frames: datagram v2 splits a tick over several datagrams when it is large.
//!
//! This complements `ackwire bench`, which times each protocol's whole session per tick
//! (presenting, diffing, encoding on the server; decoding and applying on the client) over a
//! lossy network: here only the codec runs, on the same frames, with no session state, so the
//! difference between the two is what the session machines cost beyond their codec.

use std::hint::black_box;
use std::marker::PhantomData;
use std::time::Duration;

use ackwire_bench::run::{capture, FullSnapshot, Length, Sent, PROTOCOLS};
use ackwire_bench::scenes::SceneKind;
use ackwire_codec::protocol::{Acked, Datagram, Snapshot};
use ackwire_codec::Frame;
use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput,
};

/// Loss each way, per cent: the loss `ackwire bench`'s targets are judged at.
const LOSS_PCT: f64 = 5.0;

/// The seed of scenes and network.
const SEED: u64 = 1;

/// Seconds each scene runs before the benched frames: a warm-up second (the join, when every
/// protocol sends the whole world) and two measured seconds, whose frames are not kept, so
/// that the protocols' steady state is what the kept second holds.
const LEAD_SECONDS: u32 = 3;

/// A codec as the bench drives it: one protocol's frames from and to bytes.
trait Codec {
    /// The decoded frame.
    type Value;
    /// Bytes to a frame, panicking on bytes the protocol refuses (its own frames, so a bug).
    fn decode(&mut self, bytes: &[u8]) -> Self::Value;
    /// Appends the frame's bytes to `out`.
    fn encode(&mut self, value: &Self::Value, out: &mut Vec<u8>);
}

/// A generated frame of the reference protocol.
struct Wire<F>(PhantomData<F>);

impl<F> Wire<F> {
    fn new() -> Wire<F> {
        Wire(PhantomData)
    }
}

impl<F: Frame> Codec for Wire<F> {
    type Value = F;

    fn decode(&mut self, bytes: &[u8]) -> F {
        F::decode(bytes).expect("a frame its own encoder wrote decodes")
    }

    fn encode(&mut self, value: &F, out: &mut Vec<u8>) {
        value
            .encode(out)
            .expect("a frame decoded from the wire encodes again");
    }
}

/// postcard 1 (serde).
struct Postcard;

impl Codec for Postcard {
    type Value = FullSnapshot;

    fn decode(&mut self, bytes: &[u8]) -> FullSnapshot {
        postcard::from_bytes(bytes).expect("a snapshot postcard serialized deserializes")
    }

    fn encode(&mut self, value: &FullSnapshot, out: &mut Vec<u8>) {
        // postcard writes into the cleared Vec it is lent and hands it back.
        *out = postcard::to_extend(value, std::mem::take(out))
            .expect("a snapshot postcard deserialized serializes again");
    }
}

/// bitcode 0.6, its derive and its buffers, kept between calls.
struct Bitcode {
    enc: bitcode::Buffer,
    dec: bitcode::Buffer,
}

impl Bitcode {
    fn new() -> Bitcode {
        Bitcode {
            enc: bitcode::Buffer::new(),
            dec: bitcode::Buffer::new(),
        }
    }
}

impl Codec for Bitcode {
    type Value = FullSnapshot;

    fn decode(&mut self, bytes: &[u8]) -> FullSnapshot {
        self.dec
            .decode(bytes)
            .expect("a snapshot bitcode encoded decodes")
    }

    fn encode(&mut self, value: &FullSnapshot, out: &mut Vec<u8>) {
        out.extend_from_slice(self.enc.encode(value));
    }
}

/// One protocol's benched frames: their bytes as sent and their values, decoded once.
struct Frames<T> {
    bytes: Vec<Vec<u8>>,
    values: Vec<T>,
    /// How many of them went on the reliable channel.
    reliable: usize,
}

impl<T> Frames<T> {
    /// The frames `protocol` sent from tick `from` on (all but the reliable ones unless
    /// `reliable_too`), decoded with `codec`, after checking that each encodes back to the
    /// bytes it came from.
    fn of<C: Codec<Value = T>>(
        sent: &[Sent],
        protocol: &str,
        from: u32,
        reliable_too: bool,
        codec: &mut C,
    ) -> Frames<T> {
        let kept: Vec<&Sent> = sent
            .iter()
            .filter(|s| s.protocol == protocol && s.tick >= from)
            .filter(|s| reliable_too || !s.packet.reliable)
            .collect();
        let reliable = kept.iter().filter(|s| s.packet.reliable).count();
        let bytes: Vec<Vec<u8>> = kept.iter().map(|s| s.packet.bytes.clone()).collect();
        assert!(!bytes.is_empty(), "{protocol} sent nothing to bench");
        let values: Vec<T> = bytes.iter().map(|b| codec.decode(b)).collect();
        let mut out = Vec::new();
        for (b, v) in bytes.iter().zip(&values) {
            out.clear();
            codec.encode(v, &mut out);
            assert_eq!(&out, b, "{protocol}: a frame re-encodes to other bytes");
        }
        Frames {
            bytes,
            values,
            reliable,
        }
    }

    fn total_bytes(&self) -> usize {
        self.bytes.iter().map(Vec::len).sum()
    }

    fn largest(&self) -> usize {
        self.bytes.iter().map(Vec::len).max().unwrap_or(0)
    }
}

/// One scene's frames, every protocol.
struct SceneFrames {
    kind: SceneKind,
    /// The ticks the frames cover.
    ticks: u32,
    acked: Frames<Acked>,
    datagram: Frames<Datagram>,
    baseline: Frames<Snapshot>,
    postcard: Frames<FullSnapshot>,
    bitcode: Frames<FullSnapshot>,
}

impl SceneFrames {
    /// Runs `kind` and keeps each protocol's frames of its last second.
    fn capture(kind: SceneKind) -> SceneFrames {
        let hz = kind.hz();
        let length = Length {
            ticks: hz * (LEAD_SECONDS + 1),
            warmup: hz,
        };
        let sent = capture(kind, LOSS_PCT, length, SEED, &PROTOCOLS)
            .unwrap_or_else(|e| panic!("{} runs through every protocol: {e}", kind.name()));
        let from = length.ticks - hz + 1;
        SceneFrames {
            kind,
            ticks: hz,
            acked: Frames::of(&sent, "acked", from, true, &mut Wire::new()),
            datagram: Frames::of(&sent, "datagram", from, false, &mut Wire::new()),
            baseline: Frames::of(&sent, "baseline", from, false, &mut Wire::new()),
            postcard: Frames::of(&sent, "postcard", from, false, &mut Postcard),
            bitcode: Frames::of(&sent, "bitcode", from, false, &mut Bitcode::new()),
        }
    }

    /// Entity-ticks the frames carry: what one iteration's elements count.
    fn elements(&self) -> u64 {
        u64::from(self.kind.entities()) * u64::from(self.ticks)
    }

    /// Each protocol's frames: how many, how many of them reliable, their bytes.
    fn sizes(&self) -> [(&'static str, usize, usize, usize); 5] {
        fn row<T>(name: &'static str, f: &Frames<T>) -> (&'static str, usize, usize, usize) {
            (name, f.bytes.len(), f.reliable, f.total_bytes())
        }
        [
            row("acked", &self.acked),
            row("datagram", &self.datagram),
            row("baseline", &self.baseline),
            row("postcard", &self.postcard),
            row("bitcode", &self.bitcode),
        ]
    }
}

/// Prints, once, each scene's frames per protocol: how many (and how many reliable), their
/// total and mean bytes.
fn print_sizes(scenes: &[SceneFrames]) {
    eprintln!(
        "frames benched: the last second of each scene at {LOSS_PCT}% loss, seed {SEED} \
         (one iteration = every frame of a row)"
    );
    eprintln!(
        "  {:<7} {:<9} {:>8} {:>5} {:>6} {:>8} {:>9} {:>11}",
        "scene", "protocol", "entities", "ticks", "frames", "reliable", "bytes", "bytes/frame"
    );
    for s in scenes {
        for (name, frames, reliable, bytes) in s.sizes() {
            eprintln!(
                "  {:<7} {:<9} {:>8} {:>5} {:>6} {:>8} {:>9} {:>11.1}",
                s.kind.name(),
                name,
                s.kind.entities(),
                s.ticks,
                frames,
                reliable,
                bytes,
                bytes as f64 / frames as f64
            );
        }
    }
}

/// `protocol`: decoding every frame of the set.
fn decode<C: Codec>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    protocol: &str,
    mut codec: C,
    frames: &Frames<C::Value>,
) {
    group.bench_function(protocol, |b| {
        b.iter(|| {
            for bytes in &frames.bytes {
                black_box(codec.decode(black_box(bytes)));
            }
        })
    });
}

/// `protocol`: encoding every frame of the set, each into the same cleared `Vec`.
fn encode<C: Codec>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    protocol: &str,
    mut codec: C,
    frames: &Frames<C::Value>,
) {
    let mut out = Vec::with_capacity(frames.largest());
    group.bench_function(protocol, |b| {
        b.iter(|| {
            for value in &frames.values {
                out.clear();
                codec.encode(black_box(value), &mut out);
                black_box(&out);
            }
        })
    });
}

/// `memcpy/<protocol>`: copying the bytes of every frame of the set into a preallocated
/// buffer.
fn memcpy<T>(group: &mut BenchmarkGroup<'_, WallTime>, protocol: &str, frames: &Frames<T>) {
    let mut buf = vec![0u8; frames.largest()];
    group.bench_function(BenchmarkId::new("memcpy", protocol), |b| {
        b.iter(|| {
            for bytes in &frames.bytes {
                let src = black_box(bytes.as_slice());
                buf[..src.len()].copy_from_slice(src);
                black_box(&buf);
            }
        })
    });
}

fn benches(c: &mut Criterion) {
    let scenes: Vec<SceneFrames> = SceneKind::ALL
        .into_iter()
        .map(SceneFrames::capture)
        .collect();
    print_sizes(&scenes);

    for s in &scenes {
        let name = s.kind.name();

        let mut group = c.benchmark_group(format!("{name}/decode"));
        group.throughput(Throughput::Elements(s.elements()));
        decode(&mut group, "acked", Wire::new(), &s.acked);
        decode(&mut group, "datagram", Wire::new(), &s.datagram);
        decode(&mut group, "baseline", Wire::new(), &s.baseline);
        decode(&mut group, "postcard", Postcard, &s.postcard);
        decode(&mut group, "bitcode", Bitcode::new(), &s.bitcode);
        memcpy(&mut group, "acked", &s.acked);
        memcpy(&mut group, "postcard", &s.postcard);
        group.finish();

        let mut group = c.benchmark_group(format!("{name}/encode"));
        group.throughput(Throughput::Elements(s.elements()));
        encode(&mut group, "acked", Wire::new(), &s.acked);
        encode(&mut group, "datagram", Wire::new(), &s.datagram);
        encode(&mut group, "baseline", Wire::new(), &s.baseline);
        encode(&mut group, "postcard", Postcard, &s.postcard);
        encode(&mut group, "bitcode", Bitcode::new(), &s.bitcode);
        memcpy(&mut group, "acked", &s.acked);
        memcpy(&mut group, "postcard", &s.postcard);
        group.finish();
    }
}

criterion_group! {
    name = scenes;
    // Short samples: 42 functions (six groups of seven), about two minutes in all.
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = benches
}
criterion_main!(scenes);
