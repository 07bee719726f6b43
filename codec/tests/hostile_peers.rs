//! Hostile-peer limits judged by the counting allocator (issue 13): what a client machine holds
//! after a stream built to grow it, never how long it took.

use ackwire_codec::datagram::{ReplicaLimits, ReplicaTable, StreamFrame};
use ackwire_codec::protocol::{Component, Datagram, Spawn, Update, UpdateMask};
use ackwire_codec::BitSet;
use ackwire_testkit::{is_counting, measure};

#[global_allocator]
static ALLOC: ackwire_testkit::CountingAlloc = ackwire_testkit::CountingAlloc;

const ENTITIES: u64 = 4096;

fn limits(max_component_bytes: usize) -> ReplicaLimits {
    ReplicaLimits {
        max_entities: ENTITIES as usize,
        max_held: 8,
        max_component_bytes,
        ..ReplicaLimits::default()
    }
}

/// A table holding `ENTITIES` entities spawned at tick 1, each with a one-byte component of
/// type 0 (so each entity's component map already has its node).
fn spawned(limits: ReplicaLimits) -> ReplicaTable {
    let mut table = ReplicaTable::with_limits(limits);
    for id in 0..ENTITIES {
        let s = table.apply_stream(&StreamFrame::Spawn(Spawn {
            tick: 1,
            id,
            precision: 1.0,
            x: 0,
            y: 0,
            z: 0,
            components: vec![Component {
                r#type: 0,
                data: Some(vec![1]),
            }],
        }));
        assert_eq!(s.refused, 0, "spawn {id}");
    }
    table
}

/// The hostile stream: `datagrams` whole datagrams (one part each, ticks ascending), each
/// updating 64 entities in turn with a `blob`-byte component of a type it did not hold yet
/// (types 1 to 16), so nothing a table holds is ever replaced: without a bound, it grows by
/// every byte it receives. Returns the updates skipped for the byte limit and the acks sent.
fn flood(table: &mut ReplicaTable, datagrams: u64, blob: usize) -> (u64, u64) {
    let (mut skipped, mut acks) = (0, 0);
    let mut next = 0u64;
    for frame in 1..=datagrams {
        let updates = (0..64)
            .map(|_| {
                let id = next % ENTITIES;
                let r#type = 1 + (next / ENTITIES % 16) as u8;
                next += 1;
                (id, r#type)
            })
            .collect::<std::collections::BTreeMap<u64, u8>>()
            .into_iter()
            .map(|(id, r#type)| Update {
                id,
                spawn_tag: 1,
                mask: UpdateMask::empty().with(UpdateMask::COMPONENTS),
                x: None,
                y: None,
                z: None,
                components: Some(vec![Component {
                    r#type,
                    data: Some(vec![0xab; blob]),
                }]),
            })
            .collect();
        let s = table.receive(Datagram {
            frame,
            tick: 1 + frame,
            input_ack: frame,
            stream_tick: 1,
            precision: 1.0,
            parts: 1,
            updates,
        });
        skipped += u64::from(s.skipped_over_bytes);
        acks += table.take_acks().len() as u64;
        assert!(
            table.component_bytes() <= table.limits().max_component_bytes,
            "frame {frame}: {} component bytes held",
            table.component_bytes()
        );
    }
    (skipped, acks)
}

/// Issue 13: component blobs grew the table one to one with the bytes received (42 MB after
/// 200k updates on 4,096 entities). With `max_component_bytes`, 65,536 updates of 256 bytes
/// (16 MiB of components, over 20 MiB counted with their overhead) leave the table holding no
/// more than the bound above what the entities alone hold.
#[test]
fn a_component_flood_leaves_the_table_within_its_byte_bound() {
    // DG-23.
    assert!(is_counting(), "the counting allocator is not installed");
    const BOUND: usize = 1 << 20;
    let base = measure(|| spawned(limits(BOUND)));
    let flooded = measure(|| {
        let mut table = spawned(limits(BOUND));
        let outcome = flood(&mut table, 1024, 256);
        (table, outcome)
    });
    let (table, (skipped, acks)) = &flooded.value;
    let grown = flooded.retained_bytes - base.retained_bytes;
    assert!(
        grown <= BOUND as i64,
        "the flood grew the table by {grown} bytes, over the bound of {BOUND}"
    );
    // The bound was reached, and past it updates were refused where the caller sees them: in
    // the summaries, and by datagrams left unacknowledged.
    let fit = (BOUND - 4096 * (1 + 64)) / (256 + 64);
    assert_eq!(*skipped, 65_536 - fit as u64);
    assert_eq!(
        *acks,
        fit as u64 / 64,
        "only the datagrams applied whole are acked"
    );
    assert!(table.component_bytes() > BOUND - (256 + 64));
}

/// The default bound holds too: a table with `ReplicaLimits::default()`'s byte bound stays
/// within it under a flood of larger blobs.
#[test]
fn the_default_byte_bound_holds_under_a_flood() {
    assert!(is_counting(), "the counting allocator is not installed");
    let bound = ReplicaLimits::default().max_component_bytes;
    let limits = ReplicaLimits {
        max_component_bytes: bound,
        ..limits(0)
    };
    let base = measure(|| spawned(limits));
    let flooded = measure(|| {
        let mut table = spawned(limits);
        flood(&mut table, 1024, 1024);
        table
    });
    let grown = flooded.retained_bytes - base.retained_bytes;
    assert!(
        grown <= bound as i64,
        "the flood grew the table by {grown} bytes, over the default bound of {bound}"
    );
    assert!(flooded.value.component_bytes() <= bound);
}

/// A datagram of `tick`, one of a million parts (so its tick is never whole), filled with
/// `updates` of the smallest kind: an id one above the last, a spawn tag, an empty mask (four
/// bytes on the wire each).
fn never_whole(tick: u64, updates: u64) -> Datagram {
    Datagram {
        frame: tick,
        tick,
        input_ack: 0,
        stream_tick: 0,
        precision: 1.0,
        parts: 1 << 20,
        updates: (0..updates)
            .map(|id| Update {
                id,
                spawn_tag: 1,
                mask: UpdateMask::empty(),
                x: None,
                y: None,
                z: None,
                components: None,
            })
            .collect(),
    }
}

/// Issue 38: `max_held` counts datagrams, so 256 datagrams of 64 KiB whose ticks never become
/// whole held 353 MB (22 heap bytes per wire byte). With `max_held_bytes` the table holds no
/// more heap than the bound, however large the datagrams, and gives up the oldest ticks past
/// it; every datagram given up is counted.
#[test]
fn held_datagrams_stay_within_their_byte_bound() {
    use ackwire_codec::rt::Frame;
    assert!(is_counting(), "the counting allocator is not installed");
    let limits = ReplicaLimits::default();
    // 16,384 four-byte updates: a datagram of 64 KiB.
    let wire = never_whole(1, 16_384).to_bytes().unwrap().len();
    assert!((65_536..65_600).contains(&wire), "{wire} bytes");
    let one = measure(|| {
        let mut table = ReplicaTable::with_limits(limits);
        table.receive(never_whole(1, 16_384));
        table
    });
    let cost = ReplicaLimits::held_cost(&never_whole(1, 16_384));
    assert_eq!(one.value.held_bytes(), cost);
    assert!(
        one.retained_bytes <= cost as i64,
        "one datagram held {} heap bytes, counted at {cost}",
        one.retained_bytes
    );
    let flood = measure(|| {
        let mut table = ReplicaTable::with_limits(limits);
        let mut given_up = 0;
        for tick in 1..=256 {
            given_up += table.receive(never_whole(tick, 16_384)).given_up;
            assert!(table.held_bytes() <= limits.max_held_bytes, "tick {tick}");
        }
        (table, given_up)
    });
    let (table, given_up) = &flood.value;
    let fit = limits.max_held_bytes / cost;
    assert_eq!(table.held(), fit, "the newest ticks that fit are held");
    assert_eq!(*given_up as usize, 256 - fit);
    // The table's own nodes beyond the datagrams: a B-tree node of held ticks.
    let slack = 4096;
    assert!(
        flood.retained_bytes <= (limits.max_held_bytes + slack) as i64,
        "{} heap bytes held under a bound of {}",
        flood.retained_bytes,
        limits.max_held_bytes
    );
    eprintln!(
        "a {wire}-byte datagram held: {} heap bytes ({:.1} per wire byte), counted at {cost}; \
         256 of them: {} held, {} heap bytes",
        one.retained_bytes,
        one.retained_bytes as f64 / wire as f64,
        table.held(),
        flood.retained_bytes,
    );
}

/// Past `max_held_bytes` the oldest ticks go first, the newest stays, and a tick whose
/// datagrams all arrive is applied before anything is given up.
#[test]
fn the_byte_bound_gives_up_the_oldest_ticks_first() {
    let cost = ReplicaLimits::held_cost(&never_whole(1, 10));
    let mut table = ReplicaTable::with_limits(ReplicaLimits {
        max_held_bytes: 3 * cost,
        ..ReplicaLimits::default()
    });
    for tick in 1..=3 {
        assert_eq!(table.receive(never_whole(tick, 10)).given_up, 0);
    }
    let s = table.receive(never_whole(4, 10));
    assert_eq!((s.given_up, table.held()), (1, 3));
    assert_eq!(table.held_bytes(), 3 * cost);
    // A datagram past the bound by itself is given up with everything older.
    let s = table.receive(never_whole(5, 40));
    assert_eq!((s.given_up, table.held(), table.held_bytes()), (4, 0, 0));
    // A one-part tick whose stream frame is in applies at once, whatever its size.
    let mut whole = never_whole(6, 40);
    whole.parts = 1;
    let s = table.receive(whole);
    assert_eq!((s.released, s.given_up, table.held()), (1, 0, 0));
}
