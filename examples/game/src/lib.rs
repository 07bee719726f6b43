//! A game's own protocol, generated from `wire/game.wire` at build time by
//! `ackwire_spec::Builder` and calling the runtime crate `ackwire-rt`: what a user's crate
//! looks like. It depends on `ackwire-rt` and `serde`, not on the reference protocol or its
//! session machines; the reference protocol's crate (`ackwire-codec`) is built the same way.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

include!(concat!(env!("OUT_DIR"), "/game.rs"));

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

    #[test]
    fn its_json_form_is_the_same_as_the_reference_protocol_s() {
        let json = serde_json::to_value(update()).unwrap();
        assert_eq!(json["players"][0]["mask"], serde_json::json!(["POSITION"]));
        assert_eq!(json["players"][0]["position"]["x"], 12.5);
    }
}
