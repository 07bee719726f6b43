//! Two functions plaza's datagram module has, held to `docs/spec/datagram.md` and to the golden
//! datagram vectors (`vectors/frames/datagram.json` and `vectors/derived/datagram.json`):
//! - `encode_entry_into`: one update's body, everything after its id (DG-4);
//! - `spawn_tag`: the spawn tick modulo 2^16 (DG-8).

use ackwire_codec::datagram::{
    encode_entry_into, spawn_tag, StreamFrame, Subscription, SubscriptionConfig, WorldOp,
};
use ackwire_codec::protocol::{Datagram, UpdateMask};
use ackwire_codec::rt::{ascending_step, json::from_hex, WriteExt};
use ackwire_codec::{BitSet, Frame};
use std::path::Path;

/// The positive cases of the golden datagram vectors, kept by hand and derived: name and
/// bytes.
fn golden_datagrams() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for set in ["frames", "derived"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../vectors")
            .join(set)
            .join("datagram.json");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let file: serde_json::Value = serde_json::from_str(&text).unwrap();
        out.extend(
            file["cases"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c.get("value").is_some())
                .map(|c| {
                    let name = c["name"].as_str().unwrap().to_string();
                    let bytes = from_hex(c["hex"].as_str().unwrap()).unwrap();
                    (name, bytes)
                }),
        );
    }
    out
}

/// Every golden datagram ends in its updates: each id as the ascending list codes it, then
/// exactly the body encode_entry_into writes from the update's spawn tick (any whose low bits
/// are the tag), axes and components. And the update count comes just before them.
#[test]
fn encode_entry_into_writes_the_update_bodies_of_the_golden_datagrams() {
    // DG-4.
    let mut updates = 0;
    let mut masks = UpdateMask::empty().bits();
    for (name, bytes) in golden_datagrams() {
        let d = Datagram::decode(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut tail = Vec::new();
        let mut prev = None;
        for (i, u) in d.updates.iter().enumerate() {
            tail.varint(64, ascending_step(&mut prev, u.id)).unwrap();
            // Higher bits than the tag's, different for each update: they must not show.
            let spawn_tick = u64::from(u.spawn_tag) + ((i as u64 + 1) << 16);
            let components = u.components.as_deref();
            encode_entry_into(&mut tail, spawn_tick, [u.x, u.y, u.z], components)
                .unwrap_or_else(|e| panic!("{name}: update {i}: {e}"));
            masks |= u.mask.bits();
            updates += 1;
        }
        assert!(
            bytes.ends_with(&tail),
            "{name}: the updates are\n{:02x?}\nencode_entry_into gives\n{tail:02x?}",
            &bytes[bytes.len().saturating_sub(tail.len())..]
        );
        let mut count = Vec::new();
        count.varint(64, d.updates.len() as u64).unwrap();
        assert!(
            bytes[..bytes.len() - tail.len()].ends_with(&count),
            "{name}"
        );
    }
    // Not vacuous: many updates, every mask bit among them.
    assert!(updates >= 10, "{updates} updates in the golden datagrams");
    assert_eq!(masks, 0b1111, "mask bits seen: {masks:#b}");
}

/// A body on its own: appended after what `out` holds, the mask from what is given.
#[test]
fn encode_entry_into_appends_and_the_mask_follows_from_what_is_given() {
    let mut out = vec![0xaa];
    encode_entry_into(&mut out, 0x2_0102, [None, Some(-3), None], None).unwrap();
    // 0xaa kept; spawn tag 0x0102 (u16 LE); mask Y; y = -3 zigzag 5.
    assert_eq!(out, [0xaa, 0x02, 0x01, 0x02, 0x05]);
    let mut out = Vec::new();
    encode_entry_into(&mut out, 7, [None; 3], None).unwrap();
    assert_eq!(
        out,
        [0x07, 0x00, 0x00],
        "no axes, no components: an empty mask"
    );
    let mut out = Vec::new();
    encode_entry_into(&mut out, 7, [None; 3], Some(&[])).unwrap();
    assert_eq!(
        out,
        [0x07, 0x00, 0x08, 0x00],
        "components given, none in them"
    );
}

/// DG-8: an update's spawn tag is its spawning stream frame's tick modulo 2^16.
#[test]
fn spawn_tag_is_the_low_16_bits_of_the_spawn_tick() {
    // DG-8.
    for (tick, tag) in [
        (0u64, 0u16),
        (1, 1),
        (0xffff, 0xffff),
        (0x1_0000, 0),
        (0x1_2345, 0x2345),
        (u64::MAX, 0xffff),
    ] {
        assert_eq!(spawn_tag(tick), tag, "tick {tick:#x}");
    }
    for t in [0u64, 7, 0xffff, 1 << 40] {
        assert_eq!(spawn_tag(t), spawn_tag(t + 0x1_0000), "65536 ticks apart");
        assert_ne!(spawn_tag(t), spawn_tag(t + 1), "neighbours");
    }
}

/// The server's updates carry the tag of the tick of the spawn frame it sent, past 65535 too.
#[test]
fn a_subscription_tags_its_updates_with_the_spawn_frames_tick() {
    let mut s = Subscription::new(SubscriptionConfig {
        precision: 1.0,
        max_datagram: 1200,
        sent_window: 64,
    });
    let spawned_at = 0x1_0005;
    let out = s
        .tick(
            spawned_at,
            0,
            &[WorldOp::Spawn {
                id: 3,
                position: [1.0, 2.0, 3.0],
                components: vec![],
            }],
        )
        .unwrap();
    let spawn = out
        .stream
        .iter()
        .find_map(|f| match f {
            StreamFrame::Spawn(sp) => Some(sp.tick),
            _ => None,
        })
        .unwrap();
    assert_eq!(spawn, spawned_at);
    let out = s
        .tick(
            spawned_at + 1,
            0,
            &[WorldOp::Move {
                id: 3,
                position: [4.0, 2.0, 3.0],
            }],
        )
        .unwrap();
    let update = &out.datagrams[0].updates[0];
    assert_eq!(update.spawn_tag, spawn_tag(spawn));
    assert_eq!(update.spawn_tag, 5);
}
