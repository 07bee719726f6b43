//! Recording and replaying stream vectors.
//!
//! [`record`] runs a server half and a client half through the network simulator, tick by tick
//! and millisecond by millisecond, and writes down every input each half was given and what it
//! did in return. [`replay`] gives one half, local or a testee's, the same inputs and checks that
//! it does the same: the same report of each delivery ([`report_difference`]), the same frames
//! sent, and for the client the same state hash.
//!
//! Two channels per direction: the unreliable one is the simulated [`Link`]; the reliable one
//! (frames a session marks `reliable`: datagram v2's stream frames, acked frames over
//! RELIABLE_ABOVE) delivers in order and never loses, after the unreliable link's latency plus
//! its whole jitter, which is where an ordered stream's head-of-line wait puts it.

use super::{Sent, Session};
use crate::netsim::{Link, LinkConfig, Network, NetworkConfig};
use crate::streams::{report_difference, Action, Expect, SentFrame, Side, Step, StreamVector};
use serde_json::Value;

/// What a recording is about, and how it runs.
#[derive(Debug, Clone)]
pub struct Recording {
    /// `<session>/<what>`.
    pub name: String,
    /// One line.
    pub description: String,
    /// The rules of `docs/spec/` the recording checks.
    pub seed: String,
    /// The session pair.
    pub session: String,
    /// The session's parameters.
    pub params: Value,
    /// Milliseconds per tick.
    pub tick_ms: u64,
    /// The network.
    pub network: NetworkConfig,
    /// The world's operations, one entry per tick from tick 1.
    pub script: Vec<Vec<Value>>,
    /// Milliseconds to keep running after the last tick, for frames in flight to land.
    pub drain_ms: u64,
}

/// Frames on the simulated links carry their frame name's index in `names` in front.
fn pack<N: AsRef<str>>(sent: &Sent, names: &[N]) -> Result<Vec<u8>, String> {
    let i = names
        .iter()
        .position(|n| n.as_ref() == sent.frame)
        .ok_or_else(|| format!("a session sent an unknown frame `{}`", sent.frame))?;
    let mut out = Vec::with_capacity(sent.bytes.len() + 1);
    out.push(i as u8);
    out.extend_from_slice(&sent.bytes);
    Ok(out)
}

fn unpack<'a, 'n, N: AsRef<str>>(packet: &'a [u8], names: &'n [N]) -> (&'n str, &'a [u8]) {
    let (i, bytes) = packet
        .split_first()
        .expect("the recorder packs every frame");
    (names[usize::from(*i)].as_ref(), bytes)
}

fn sent_frames(sent: &[Sent]) -> Vec<SentFrame> {
    sent.iter()
        .map(|s| SentFrame {
            frame: s.frame.clone(),
            hex: crate::frame_json::hex_spaced(&s.bytes),
            reliable: s.reliable,
        })
        .collect()
}

/// A reliable, ordered channel beside an unreliable link.
fn reliable_beside(config: &LinkConfig) -> Link {
    Link::new(
        LinkConfig {
            latency_ms: config.latency_ms + config.jitter_ms,
            ..LinkConfig::perfect()
        },
        0,
    )
}

/// One direction's two channels: the reliable, ordered one and the simulated link, and the
/// frame names a packet's first byte indexes.
struct Channels<'a, N: AsRef<str>> {
    reliable: &'a mut Link,
    unreliable: &'a mut Link,
    names: &'a [N],
}

impl<N: AsRef<str>> Channels<'_, N> {
    fn poll(&mut self, now: u64) -> Option<Vec<u8>> {
        self.reliable
            .poll(now)
            .or_else(|| self.unreliable.poll(now))
    }

    fn send(&mut self, now: u64, sent: &[Sent]) -> Result<(), String> {
        for s in sent {
            let link = if s.reliable {
                &mut *self.reliable
            } else {
                &mut *self.unreliable
            };
            link.send(now, pack(s, self.names)?);
        }
        Ok(())
    }
}

/// Gives `half` one input, sends what it answers on `out`, and logs the step.
fn step<N: AsRef<str>>(
    now: u64,
    side: Side,
    action: Action,
    half: &mut dyn Session,
    out: &mut Channels<'_, N>,
    steps: &mut Vec<Step>,
) -> Result<(), String> {
    let report = match &action {
        Action::Advance { tick, ops } => {
            half.advance(*tick, now, ops)?;
            None
        }
        Action::Deliver { frame, hex } => {
            let bytes = crate::frame_json::parse_hex(hex)?;
            Some(half.deliver(now, frame, &bytes)?)
        }
    };
    let sent = half.take();
    out.send(now, &sent)?;
    steps.push(Step {
        at_ms: now,
        side,
        action,
        expect: Expect {
            sent: sent_frames(&sent),
            client_hash: if side == Side::Client {
                half.state_hash()
            } else {
                None
            },
            report,
        },
    });
    Ok(())
}

/// Runs the recording and returns its stream vector.
pub fn record(rec: &Recording) -> Result<StreamVector, String> {
    let mut server = super::open(&format!("{}_server", rec.session), &rec.params)?;
    let mut client = super::open(&format!("{}_client", rec.session), &rec.params)?;
    record_pair(
        rec,
        &[],
        server.as_mut(),
        client.as_mut(),
        &crate::frame_json::frame_names(),
    )
}

/// Runs the recording over halves `server` and `client`, whose frames are named in `names`,
/// the client given `client_script[t - 1]` as its ops at tick `t` (none past its end), and
/// returns its stream vector.
pub fn record_pair<N: AsRef<str>>(
    rec: &Recording,
    client_script: &[Vec<Value>],
    server: &mut dyn Session,
    client: &mut dyn Session,
    names: &[N],
) -> Result<StreamVector, String> {
    let mut net = Network::new(&rec.network);
    let mut down_reliable = reliable_beside(&rec.network.down);
    let mut up_reliable = reliable_beside(&rec.network.up);
    let mut down = Channels {
        reliable: &mut down_reliable,
        unreliable: &mut net.down,
        names,
    };
    let mut up = Channels {
        reliable: &mut up_reliable,
        unreliable: &mut net.up,
        names,
    };
    let mut steps = Vec::new();
    let end = rec.script.len() as u64 * rec.tick_ms + rec.drain_ms;
    let deliver = |packet: &[u8]| {
        let (frame, bytes) = unpack(packet, names);
        Action::Deliver {
            frame: frame.to_string(),
            hex: crate::frame_json::hex_spaced(bytes),
        }
    };
    for now in 0..=end {
        // Deliveries first: what arrives at a millisecond is seen before that tick runs.
        while let Some(packet) = down.poll(now) {
            step(
                now,
                Side::Client,
                deliver(&packet),
                client,
                &mut up,
                &mut steps,
            )?;
        }
        while let Some(packet) = up.poll(now) {
            step(
                now,
                Side::Server,
                deliver(&packet),
                server,
                &mut down,
                &mut steps,
            )?;
        }
        if !now.is_multiple_of(rec.tick_ms) || now == 0 {
            continue;
        }
        let tick = now / rec.tick_ms;
        // Both halves tick while the script runs; afterwards the network only drains.
        if let Some(ops) = rec.script.get(tick as usize - 1) {
            let action = Action::Advance {
                tick,
                ops: ops.clone(),
            };
            step(now, Side::Server, action, server, &mut down, &mut steps)?;
            let action = Action::Advance {
                tick,
                ops: client_script
                    .get(tick as usize - 1)
                    .cloned()
                    .unwrap_or_default(),
            };
            step(now, Side::Client, action, client, &mut up, &mut steps)?;
        }
    }
    Ok(StreamVector {
        name: rec.name.clone(),
        description: rec.description.clone(),
        seed: rec.seed.clone(),
        session: rec.session.clone(),
        params: rec.params.clone(),
        tick_ms: rec.tick_ms,
        network: rec.network,
        steps,
    })
}

/// Gives `half` (the `side` of `vector.session`) every input the vector gave that side, and
/// checks it does the same (TESTEE-10, TESTEE-11). Returns the first difference, with its step.
pub fn replay(vector: &StreamVector, side: Side, half: &mut dyn Session) -> Result<(), String> {
    for (i, step) in vector
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| s.side == side)
    {
        let at = format!("step {i} (at {} ms)", step.at_ms);
        match &step.action {
            Action::Advance { tick, ops } => half
                .advance(*tick, step.at_ms, ops)
                .map_err(|e| format!("{at}: advance to tick {tick} failed: {e}"))?,
            Action::Deliver { frame, hex } => {
                let bytes = crate::frame_json::parse_hex(hex).map_err(|e| format!("{at}: {e}"))?;
                let report = half
                    .deliver(step.at_ms, frame, &bytes)
                    .map_err(|e| format!("{at}: delivering {frame} failed: {e}"))?;
                if let Some(expected) = &step.expect.report {
                    if let Some(path) = report_difference(expected, &report) {
                        let member = if path.is_empty() {
                            "it".into()
                        } else {
                            format!("`{path}`")
                        };
                        return Err(format!(
                            "{at}: the report of {frame} differs in {member}: expected {expected}\n     but the half reported {report}"
                        ));
                    }
                }
            }
        }
        let sent = sent_frames(&half.take());
        if sent != step.expect.sent {
            return Err(format!(
                "{at}: expected to send {}\n     but sent {}",
                describe(&step.expect.sent),
                describe(&sent)
            ));
        }
        if let Some(expected) = step.expect.client_hash {
            match half.state_hash() {
                Some(h) if h == expected => {}
                other => {
                    return Err(format!(
                        "{at}: expected client state hash {expected:#010x}, got {}",
                        other.map_or("none".to_string(), |h| format!("{h:#010x}"))
                    ))
                }
            }
        }
    }
    Ok(())
}

fn describe(frames: &[SentFrame]) -> String {
    if frames.is_empty() {
        return "nothing".into();
    }
    frames
        .iter()
        .map(|f| {
            format!(
                "{}{} [{}]",
                f.frame,
                if f.reliable { " (reliable)" } else { "" },
                f.hex
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Replays both halves of `vector` on this crate's own sessions.
pub fn verify(vector: &StreamVector) -> Result<(), String> {
    for (side, half) in [(Side::Server, "server"), (Side::Client, "client")] {
        let mut session = super::open(&format!("{}_{half}", vector.session), &vector.params)?;
        replay(vector, side, session.as_mut()).map_err(|e| format!("{half}: {e}"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::netsim::LinkConfig;
    use ackwire_codec::protocol::FRAME_NAMES;
    use ackwire_codec::protocol::{DeltaAck, SnapshotAck};
    use ackwire_codec::Frame;

    /// A toy pair: the server sends a delta_ack numbered by tick, the client answers each with a
    /// snapshot_ack and hashes the numbers it has seen.
    struct ToyServer(Vec<Sent>);
    struct ToyClient {
        seen: Vec<u64>,
        out: Vec<Sent>,
        skew: bool,
    }

    impl Session for ToyServer {
        fn advance(&mut self, tick: u64, _: u64, _: &[Value]) -> Result<(), String> {
            let f = DeltaAck {
                newest: tick,
                mask: 0,
                digest: 0,
            };
            self.0.push(Sent {
                frame: "delta_ack".into(),
                bytes: f.to_bytes().unwrap(),
                reliable: tick.is_multiple_of(5),
            });
            Ok(())
        }
        fn deliver(&mut self, _: u64, _: &str, _: &[u8]) -> Result<Value, String> {
            Ok(Value::Null)
        }
        fn take(&mut self) -> Vec<Sent> {
            std::mem::take(&mut self.0)
        }
        fn state_hash(&mut self) -> Option<u32> {
            None
        }
    }

    impl Session for ToyClient {
        fn advance(&mut self, _: u64, _: u64, _: &[Value]) -> Result<(), String> {
            Ok(())
        }
        fn deliver(&mut self, _: u64, frame: &str, bytes: &[u8]) -> Result<Value, String> {
            assert_eq!(frame, "delta_ack");
            let f = DeltaAck::decode(bytes).map_err(|e| e.to_string())?;
            self.seen.push(f.newest);
            let ack = SnapshotAck {
                sequence: f.newest as u16,
            };
            self.out.push(Sent {
                frame: "snapshot_ack".into(),
                bytes: ack.to_bytes().unwrap(),
                reliable: false,
            });
            Ok(serde_json::json!({"seen": f.newest}))
        }
        fn take(&mut self) -> Vec<Sent> {
            std::mem::take(&mut self.out)
        }
        fn state_hash(&mut self) -> Option<u32> {
            let bytes: Vec<u8> = self.seen.iter().flat_map(|v| v.to_le_bytes()).collect();
            let h = ackwire_codec::rt::fnv1a32(&bytes);
            Some(if self.skew { h ^ 1 } else { h })
        }
    }

    /// Records the toy pair with the recorder's own steps (the registry only opens real
    /// sessions, so `record` itself cannot open the toys).
    fn toy_vector(network: NetworkConfig) -> StreamVector {
        let mut server = ToyServer(Vec::new());
        let mut client = ToyClient {
            seen: Vec::new(),
            out: Vec::new(),
            skew: false,
        };
        let mut net = Network::new(&network);
        let (mut down_reliable, mut up_reliable) =
            (reliable_beside(&network.down), reliable_beside(&network.up));
        let mut down = Channels {
            reliable: &mut down_reliable,
            unreliable: &mut net.down,
            names: FRAME_NAMES,
        };
        let mut up = Channels {
            reliable: &mut up_reliable,
            unreliable: &mut net.up,
            names: FRAME_NAMES,
        };
        let mut steps = Vec::new();
        for now in 0..=400u64 {
            while let Some(p) = down.poll(now) {
                let (frame, bytes) = unpack(&p, FRAME_NAMES);
                let action = Action::Deliver {
                    frame: frame.into(),
                    hex: crate::frame_json::hex_spaced(bytes),
                };
                step(now, Side::Client, action, &mut client, &mut up, &mut steps).unwrap();
            }
            while up.poll(now).is_some() {}
            if now.is_multiple_of(10) && now > 0 && now <= 300 {
                let action = Action::Advance {
                    tick: now / 10,
                    ops: vec![],
                };
                step(
                    now,
                    Side::Server,
                    action,
                    &mut server,
                    &mut down,
                    &mut steps,
                )
                .unwrap();
            }
        }
        StreamVector {
            name: "toy/lossy".into(),
            description: "toy".into(),
            seed: "test".into(),
            session: "toy".into(),
            params: Value::Null,
            tick_ms: 10,
            network,
            steps,
        }
    }

    fn lossy() -> NetworkConfig {
        NetworkConfig {
            down: LinkConfig {
                loss: 0.3,
                duplicate: 0.1,
                latency_ms: 20,
                jitter_ms: 15,
                ..LinkConfig::default()
            },
            up: LinkConfig::perfect(),
            seed: 3,
        }
    }

    #[test]
    fn a_faithful_half_replays_and_the_reliable_channel_never_loses() {
        let v = toy_vector(lossy());
        let delivered: Vec<&Step> = v.steps.iter().filter(|s| s.side == Side::Client).collect();
        assert!(
            delivered.len() > 10 && delivered.len() < 45,
            "loss and duplication shape the log"
        );
        // Every fifth tick went reliably: all six of them arrived, in order.
        let reliable: Vec<u64> = delivered
            .iter()
            .filter_map(|s| match &s.action {
                Action::Deliver { hex, .. } => {
                    DeltaAck::decode(&crate::frame_json::parse_hex(hex).unwrap()).ok()
                }
                _ => None,
            })
            .map(|f| f.newest)
            .filter(|n| n % 5 == 0)
            .collect();
        assert!(reliable.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(reliable.len(), 6);
        let mut client = ToyClient {
            seen: Vec::new(),
            out: Vec::new(),
            skew: false,
        };
        replay(&v, Side::Client, &mut client).unwrap();
        let mut server = ToyServer(Vec::new());
        replay(&v, Side::Server, &mut server).unwrap();
    }

    #[test]
    fn a_half_that_strays_is_caught_at_its_step() {
        let v = toy_vector(lossy());
        let mut client = ToyClient {
            seen: Vec::new(),
            out: Vec::new(),
            skew: true,
        };
        let e = replay(&v, Side::Client, &mut client).unwrap_err();
        assert!(e.contains("expected client state hash"), "{e}");
        // A client that tells another report than the one recorded fails at that delivery.
        let mut told = v.clone();
        let at = told
            .steps
            .iter()
            .position(|s| s.side == Side::Client)
            .unwrap();
        told.steps[at].expect.report = Some(serde_json::json!({"seen": 999}));
        let mut honest = ToyClient {
            seen: Vec::new(),
            out: Vec::new(),
            skew: false,
        };
        let e = replay(&told, Side::Client, &mut honest).unwrap_err();
        assert!(
            e.starts_with(&format!("step {at} ")) && e.contains("differs in `seen`"),
            "{e}"
        );
        // A server that sends nothing fails at its first tick.
        struct Mute;
        impl Session for Mute {
            fn advance(&mut self, _: u64, _: u64, _: &[Value]) -> Result<(), String> {
                Ok(())
            }
            fn deliver(&mut self, _: u64, _: &str, _: &[u8]) -> Result<Value, String> {
                Ok(Value::Null)
            }
            fn take(&mut self) -> Vec<Sent> {
                Vec::new()
            }
            fn state_hash(&mut self) -> Option<u32> {
                None
            }
        }
        let e = replay(&v, Side::Server, &mut Mute).unwrap_err();
        assert!(e.contains("but sent nothing"), "{e}");
    }

    #[test]
    fn the_same_network_seed_records_the_same_log() {
        assert_eq!(toy_vector(lossy()), toy_vector(lossy()));
        let mut other = lossy();
        other.seed = 4;
        assert_ne!(toy_vector(lossy()).steps, toy_vector(other).steps);
    }
}
