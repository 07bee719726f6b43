//! A game's own protocol, generated from `wire/game.wire` at build time by
//! `ackwire_spec::Builder`: what a user's crate looks like. Its frames call the runtime crate
//! `ackwire-rt`; its replicated state (`state Arena`: players, projectiles and pickups) comes
//! with the binding of the acked session machines of `ackwire-codec` (the schemas [`Arena`]
//! and [`PackedArena`]), generated from the same declaration, and [`arena`] is the game's own
//! server simulation that feeds them; [`stream`] runs it to clients through a network that loses,
//! duplicates and reorders.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

include!(concat!(env!("OUT_DIR"), "/game.rs"));

pub mod arena;
pub mod stream;

#[cfg(test)]
mod tests {
    use super::*;
    use ackwire_rt::{ErrorKind, Frame};

    fn update() -> MatchUpdate {
        MatchUpdate {
            tick: 1200,
            players: vec![
                PlayerUpdate {
                    id: 3,
                    mask: PlayerMask::empty().with(PlayerMask::POSITION),
                    position: Some(Position { x: 12.5, y: -0.25 }),
                    score: None,
                },
                PlayerUpdate {
                    id: 9,
                    mask: PlayerMask::empty().with(PlayerMask::SCORE),
                    position: None,
                    score: Some(40),
                },
            ],
        }
    }

    #[test]
    fn the_game_s_frame_round_trips() {
        let bytes = update().to_bytes().unwrap();
        // kind, tick (4), count, id 3, mask, x 1250 (zigzag 2500: c4 13), y -25 (zigzag 49),
        // id delta 6, mask, score.
        assert_eq!(
            bytes,
            [1, 0xb0, 0x04, 0, 0, 2, 3, 1, 0xc4, 0x13, 49, 6, 2, 40, 0]
        );
        assert_eq!(MatchUpdate::decode(&bytes).unwrap(), update());
        assert_eq!(update().encoded_len(), bytes.len());
        assert_eq!(MAX_PLAYERS, 16);
    }

    #[test]
    fn its_decoder_is_canonical_too() {
        let mut bytes = update().to_bytes().unwrap();
        bytes[11] = 0; // a zero id difference: not ascending
        let e = MatchUpdate::decode(&bytes).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NotAscending);
        assert_eq!(e.path_string(), "players[1].id");
    }

    /// Two cubes: the first turned and nudged, the second (three ids on) moved far.
    fn cubes() -> CubeUpdate {
        CubeUpdate {
            tick: 7,
            body: CubeBody {
                changes: vec![
                    CubeChange {
                        id: 0,
                        turned: true,
                        orient: Some(ackwire_rt::SmallestThree {
                            largest: 3,
                            rest: [254, 0, 0],
                        }),
                        wide: false,
                        dx: Some(1.0 / 512.0),
                        dx_wide: None,
                    },
                    CubeChange {
                        id: 3,
                        turned: false,
                        orient: None,
                        wide: true,
                        dx: None,
                        dx_wide: Some(-2.0),
                    },
                ],
            },
        }
    }

    #[test]
    fn the_cube_frame_spends_the_bits_its_layout_says() {
        let bytes = cubes().to_bytes().unwrap();
        // Cube 0: id 0 (bucket 0: 1 + 2 bits), turned, 29 bits of orientation, wide, a step
        // of 1 (zigzag 2, bucket 0: 3 bits) = 37 bits. Cube 3: a gap of 3 (3 bits), turned,
        // wide, 20 bits = 25. With the count, 70 bits: 9 bytes after kind and tick.
        assert_eq!(bytes.len(), 5 + 9);
        assert_eq!(cubes().body.bit_len(), 8 + 37 + 25);
        assert_eq!(CubeUpdate::decode(&bytes).unwrap(), cubes());
        assert_eq!(cubes().encoded_len(), bytes.len());
        let json = serde_json::to_value(cubes()).unwrap();
        assert_eq!(
            json["body"]["changes"][0]["orient"],
            serde_json::json!({"largest": 3, "rest": [254, 0, 0]})
        );
        let back: CubeUpdate = serde_json::from_value(json).unwrap();
        assert_eq!(back, cubes());
    }

    /// Frame bit 52 starts cube 0's orientation (kind and tick, the count, a 3-bit id, the
    /// turned bit); its x component is bits 54 to 62.
    const ORIENT_BIT: usize = 40 + 8 + 3 + 1;

    #[test]
    fn a_quaternion_whose_dropped_component_is_not_the_largest_is_refused() {
        let mut bytes = cubes().to_bytes().unwrap();
        // x from 254 to 255: as large as w, which is then not the one to drop (x is, the
        // lowest index on a tie).
        let bit = ORIENT_BIT + 2;
        bytes[bit / 8] |= 1 << (bit % 8);
        let e = CubeUpdate::decode(&bytes).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NonCanonical);
        assert_eq!(e.bit, Some(ORIENT_BIT));
        assert_eq!(e.path_string(), "body.changes[0].orient");
        // An encoder refuses the same value.
        let mut bad = cubes();
        bad.body.changes[0].orient = Some(ackwire_rt::SmallestThree {
            largest: 3,
            rest: [255, 0, 0],
        });
        assert_eq!(bad.to_bytes().unwrap_err().kind, ErrorKind::NonCanonical);
        // And a component at -2^(B-1) is over its width.
        bad.body.changes[0].orient = Some(ackwire_rt::SmallestThree {
            largest: 3,
            rest: [-256, 0, 0],
        });
        assert_eq!(bad.to_bytes().unwrap_err().kind, ErrorKind::OverWidth);
    }

    #[test]
    fn ids_in_a_packed_list_ascend_and_stay_within_their_bucket_code() {
        let mut same = cubes();
        same.body.changes[1].id = 0;
        assert_eq!(same.to_bytes().unwrap_err().kind, ErrorKind::NotAscending);
        let mut past = cubes();
        // bucket(2, 5, 10): 4 + 32 + 1024 values, the largest 1059.
        past.body.changes[1].id = 1060;
        assert_eq!(past.to_bytes().unwrap_err().kind, ErrorKind::OverWidth);
        past.body.changes[1].id = 1059;
        let bytes = past.to_bytes().unwrap();
        assert_eq!(CubeUpdate::decode(&bytes).unwrap(), past);
        // A zero gap on the wire: cube 1's id code is bits 85 to 87 (after cube 0's 37 bits).
        let mut bytes = cubes().to_bytes().unwrap();
        for bit in 85..88 {
            bytes[bit / 8] &= !(1 << (bit % 8));
        }
        let e = CubeUpdate::decode(&bytes).unwrap_err();
        assert_eq!(e.kind, ErrorKind::NotAscending);
        assert_eq!(
            (e.bit, e.path_string().as_str()),
            (Some(85), "body.changes[1].id")
        );
    }

    fn game_spec() -> ackwire_spec::model::Spec {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("wire/game.wire");
        ackwire_spec::load(&[path])
            .unwrap_or_else(|e| panic!("{e}"))
            .0
    }

    #[test]
    fn explain_reads_the_cube_frame_field_by_field_with_its_bits() {
        let bytes = cubes().to_bytes().unwrap();
        let rows = ackwire_conformance::explain::explain(&game_spec(), "cube_update", &bytes)
            .unwrap_or_else(|e| panic!("{e}"));
        let find = |path: &str| {
            rows.iter()
                .find(|r| r.path == path)
                .unwrap_or_else(|| panic!("no row {path}"))
        };
        let orient = find("body.changes[0].orient");
        assert_eq!(orient.bit, Some(ORIENT_BIT));
        assert!(
            orient
                .value
                .starts_with("w dropped, rest [254, 0, 0]: (0.7043"),
            "{}",
            orient.value
        );
        assert_eq!(find("body.changes[0].id").value, "0");
        assert_eq!(find("body.changes[1].id").value, "3 (delta 3)");
        assert_eq!(find("body.changes[0].dx").value, "0.001953125 (wire 1)");
        assert_eq!(find("body.changes[1].dx_wide").value, "-2 (wire -1024)");
        // The same fault, at the same bit, with the same path, as the generated decoder.
        let mut bad = bytes.clone();
        let bit = ORIENT_BIT + 2;
        bad[bit / 8] |= 1 << (bit % 8);
        let codec = CubeUpdate::decode(&bad).unwrap_err();
        match ackwire_conformance::explain::explain(&game_spec(), "cube_update", &bad) {
            Err(ackwire_conformance::explain::ExplainError::Decode { error, .. }) => {
                assert_eq!(error, codec)
            }
            other => panic!("{other:?}"),
        }
        // Every one-bit change of the frame is accepted or refused alike by both.
        for bit in 0..bytes.len() * 8 {
            let mut b = bytes.clone();
            b[bit / 8] ^= 1 << (bit % 8);
            let codec = CubeUpdate::decode(&b).err();
            let explained =
                match ackwire_conformance::explain::explain(&game_spec(), "cube_update", &b) {
                    Ok(_) => None,
                    Err(ackwire_conformance::explain::ExplainError::Decode { error, .. }) => {
                        Some(error)
                    }
                    Err(other) => panic!("bit {bit}: {other}"),
                };
            assert_eq!(explained, codec, "bit {bit}");
        }
        // And every truncation of the frame fails alike in both.
        for n in 0..bytes.len() {
            let codec = CubeUpdate::decode(&bytes[..n]).unwrap_err();
            match ackwire_conformance::explain::explain(&game_spec(), "cube_update", &bytes[..n]) {
                Err(ackwire_conformance::explain::ExplainError::Decode { error, .. }) => {
                    assert_eq!(error, codec, "{n} bytes")
                }
                other => panic!("{n} bytes: {other:?}"),
            }
        }
    }

    #[test]
    fn its_json_form_is_the_same_as_the_reference_protocol_s() {
        let json = serde_json::to_value(update()).unwrap();
        assert_eq!(json["players"][0]["mask"], serde_json::json!(["POSITION"]));
        assert_eq!(json["players"][0]["position"]["x"], 12.5);
    }
}
