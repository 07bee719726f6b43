//! The tutorial's server and a Rust client over a link that loses, duplicates and reorders:
//! every state the client shows hashes to the server's check of that tick, every check a frame
//! carries passes, and once the link heals the client holds the server's ships. The run is
//! recorded (`stream.txt`): the TypeScript and C# clients (`ts/test.sh`, `cs/test.sh`) are held
//! to it. `BLESS=1` writes it anew; otherwise a run that differs from it fails.

use ackwire_codec::acked::Delivery;
use ackwire_codec::session::{AckedClient, Now, SessionHalf};
use ackwire_example_tutorial::sea::Server;
use ackwire_example_tutorial::{Fleet, Helm, SeaEvent};
use ackwire_sim::{Fate, FateQueue};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// Server ticks: three seconds.
const TICKS: u32 = 180;
/// The tick the link heals at: every frame then arrives the next tick, once.
const HEAL: u32 = 150;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The player's order for `tick`: the rudder over, then back, in steps the wire holds
/// (`quant(i8, 1/100)`).
fn helm(tick: u32) -> Helm {
    let rudder = [0.0, 1.0, 0.25, -0.5, -1.0][(tick / 40 % 5) as usize];
    Helm { tick, rudder }
}

#[test]
fn the_client_shows_the_server_s_ships_through_a_lossy_link() {
    let mut server = Server::new();
    let mut client = AckedClient::<Fleet>::new(8);
    let (mut down, mut up) = (FateQueue::new(), FateQueue::new());
    let (down_fates, up_fates) = (Fate::schedule(1, 0.2, 97), Fate::schedule(2, 0.2, 97));
    // The server's check of every tick, which the client's state of that tick must hash to.
    let mut checks = BTreeMap::new();
    let mut record = String::new();
    let (mut shown, mut dropped, mut passed) = (0, 0, 0);
    let mut sunk = Vec::new();
    // The last frame may wait 6 ticks after `TICKS`.
    for t in 1..=TICKS + 8 {
        let healed = t >= HEAL;
        let now = Now::new(u64::from(t), 0);
        for bytes in down.arrivals(t) {
            writeln!(record, "frame {}", hex(&bytes)).unwrap();
            match client.handle_frame(now, "fleet_update", &bytes).unwrap() {
                Delivery::Shown(report) => {
                    assert_ne!(report.check, Some(false), "tick {t}: a check failed");
                    passed += u32::from(report.check.is_some());
                    sunk.extend(report.events.iter().map(|(_, SeaEvent::Sunk(s))| s.ship));
                    let (tick, _) = client.machine().shown().unwrap();
                    let got = client.machine().state_hash();
                    assert_eq!(got, checks[&tick], "tick {t}: the client's tick {tick}");
                    writeln!(record, "shown {tick} {got:08x}").unwrap();
                    shown += 1;
                }
                Delivery::Stale { .. } | Delivery::UnknownBase { .. } => {
                    record.push_str("dropped\n");
                    dropped += 1;
                }
                other => panic!("tick {t}: a frame refused: {other:?}"),
            }
        }
        for bytes in up.arrivals(t) {
            server.receive(t, &bytes).unwrap();
        }
        client.handle_tick(now, helm(t + 2)).unwrap();
        let ack = client.poll_transmit().unwrap().bytes;
        writeln!(record, "ack {}", hex(&ack)).unwrap();
        up.send(t, Fate::nth(&up_fates, t as usize, healed), ack);
        if t <= TICKS {
            let frame = server.tick(t).unwrap();
            checks.insert(t, server.check());
            down.send(t, Fate::nth(&down_fates, t as usize, healed), frame);
        }
    }
    // The run meant something: frames shown and dropped, checks passed.
    assert!(
        shown > 100 && dropped > 5 && passed > 2,
        "{shown} shown, {dropped} dropped, {passed} checks"
    );
    // A ship is hit every 40 ticks and sinks at its fourth hit: ship 2 at tick 130, 3 at 140,
    // 4 at 150, 1 at 160. The client is told of each once.
    assert_eq!(sunk, [2, 3, 4, 1]);
    let (tick, live) = client.machine().shown().unwrap();
    assert_eq!(tick, TICKS);
    let held: Vec<_> = live.iter().collect();
    assert_eq!(held, server.ships());
    for (id, ship) in &held {
        writeln!(record, "ship {id} {} {} {}", ship.x, ship.y, ship.health).unwrap();
    }

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("stream.txt");
    if std::env::var_os("BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &record).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        record == want,
        "{} is not what the run makes (BLESS=1 writes it anew)",
        path.display()
    );
}
