//! # ackwire-example-sockets
//!
//! The acked stream (`docs/spec/acked.md`) over real sockets on 127.0.0.1, since every other test
//! runs on the simulator. `cube-server` streams the bench's cube scene (901 bodies at 60 Hz, about
//! a hundred moving) through the codec's acked server half
//! ([`ackwire_codec::session::AckedServer`]), or examples/game's arena through the acked machines
//! over the game's generated binding, to one client: a browser over a WebSocket (a page cannot
//! open UDP) or a native client over UDP. It drops, duplicates and reorders the unreliable frames
//! itself, seeded, through the simulator's own [`ackwire_sim::Link`] (so a rate means what it
//! means in a stream vector), reads the client's kind 7 acks back, and judges the client: every
//! state hash the client reports for a tick must equal the hash of S_N, the presenter's state for
//! that client at that tick ([`Judge`]).
//!
//! What it is not: a production transport. The reliable channel is the socket itself (TCP
//! under the WebSocket; on loopback UDP, a datagram the simulated faults leave alone), and one
//! client is served per run.
//!
//! - [`websocket`]: the handshake and frames of RFC 6455 the server needs;
//! - [`cube`]: the scene, the world the presenter reads, the acked half and S_N's hash;
//! - [`arena`]: `--scene arena`, examples/game's arena over its own generated binding, the
//!   client playing one of its players;
//! - [`Judge`]: S_N's hash per tick, and the client's reports held to it.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod arena;
pub mod cube;
pub mod websocket;

use std::collections::BTreeMap;

/// A client's report of the state it shows: `shown TICK HASH` (decimal), one per frame shown.
pub fn parse_report(text: &str) -> Option<(u32, u32)> {
    let mut words = text.split_whitespace();
    if words.next()? != "shown" {
        return None;
    }
    let tick = words.next()?.parse().ok()?;
    let hash = words.next()?.parse().ok()?;
    words.next().is_none().then_some((tick, hash))
}

/// The server's S_N hash per tick, and the client's reports judged against it.
///
/// Bounded: one entry per tick the server runs (`--ticks`), and reports of ticks the server
/// never ran count as mismatches rather than being stored.
#[derive(Debug, Default, Clone)]
pub struct Judge {
    hashes: BTreeMap<u32, u32>,
    /// Reports whose hash equals S_N's.
    pub matched: u64,
    /// Reports whose hash differs from S_N's (or name a tick the server never ran).
    pub mismatched: u64,
    /// The first mismatch: tick, the client's hash, S_N's (none for an unknown tick).
    pub first_mismatch: Option<(u32, u32, Option<u32>)>,
}

impl Judge {
    /// S_N of `tick` hashes to `hash`.
    pub fn server(&mut self, tick: u32, hash: u32) {
        self.hashes.insert(tick, hash);
    }

    /// The client reports that it shows tick `tick` with state hash `hash`; true when it
    /// equals S_N's.
    pub fn client(&mut self, tick: u32, hash: u32) -> bool {
        let expected = self.hashes.get(&tick).copied();
        if expected == Some(hash) {
            self.matched += 1;
            true
        } else {
            self.mismatched += 1;
            self.first_mismatch.get_or_insert((tick, hash, expected));
            false
        }
    }

    /// The verdict line, and whether it passes: at least `min_reports` reports, none wrong.
    pub fn verdict(&self, min_reports: u64) -> (bool, String) {
        let ok = self.mismatched == 0 && self.matched >= min_reports;
        let mut line = format!(
            "verdict: {} {} client reports matched S_N, {} did not (at least {min_reports} needed)",
            if ok { "PASS" } else { "FAIL" },
            self.matched,
            self.mismatched
        );
        if let Some((tick, got, want)) = self.first_mismatch {
            line.push_str(&format!(
                "; first at tick {tick}: client {got:#010x}, S_N {}",
                want.map_or("never ran".into(), |w| format!("{w:#010x}"))
            ));
        }
        (ok, line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_parse_and_are_judged_against_s_n() {
        assert_eq!(
            parse_report("shown 12 3735928559"),
            Some((12, 3_735_928_559))
        );
        assert_eq!(parse_report("shown 12"), None);
        assert_eq!(parse_report("shown 12 3 4"), None);
        assert_eq!(parse_report("hello"), None);
        let mut j = Judge::default();
        j.server(1, 10);
        j.server(2, 20);
        assert!(j.client(1, 10));
        assert!(j.client(2, 20));
        assert!(j.verdict(2).0);
        assert!(!j.verdict(3).0, "too few reports");
        assert!(!j.client(2, 21));
        assert!(!j.client(9, 1));
        let (ok, line) = j.verdict(1);
        assert!(!ok);
        assert!(
            line.contains("first at tick 2: client 0x00000015, S_N 0x00000014"),
            "{line}"
        );
    }
}
