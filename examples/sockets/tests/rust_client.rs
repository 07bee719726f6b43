//! `cube-server --transport udp` against a Rust client over a real UDP socket on 127.0.0.1
//! (the codec's AckedDecoder and kind 7 writer): the server passes a client that shows S_N,
//! and fails one that reports a wrong hash. The TypeScript page and the C++ client are held to
//! the same verdict by scripts/examples.sh.

use ackwire_codec::acked::{AckWriter, AckedDecoder, AckedSchema, Delivery, Reference};
use ackwire_codec::protocol::{Buttons, Input};
use ackwire_codec::BitSet;
use std::io::{BufRead, BufReader};
use std::net::UdpSocket;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs the server and a client that adds `skew` to every hash it reports; returns the
/// server's exit status and its output.
fn run(skew: u32) -> (bool, String) {
    let mut server = Command::new(env!("CARGO_BIN_EXE_cube-server"))
        .args(["--transport", "udp", "--ticks", "120", "--loss", "0.1"])
        .args([
            "--duplicate",
            "0.1",
            "--jitter-ms",
            "40",
            "--timeout-s",
            "30",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(server.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let addr = first
        .trim()
        .strip_prefix("listening udp ")
        .unwrap_or_else(|| panic!("not a readiness line: {first}"))
        .to_string();
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket.connect(&addr).unwrap();
    socket.send(b"hello").unwrap();
    socket
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut decoder: AckedDecoder<Reference> = AckedDecoder::new();
    let mut writer: AckWriter<Input> = AckWriter::new(16);
    let mut buf = vec![0u8; 65536];
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seq_tick = 0u32;
    while Instant::now() < deadline {
        let Ok(n) = socket.recv(&mut buf) else {
            continue;
        };
        let d = &buf[..n];
        if d == b"done" {
            break;
        }
        if let Delivery::Shown(r) = decoder.deliver(d) {
            let tick = r.tick;
            let hash = decoder.state_hash().wrapping_add(skew);
            socket
                .send(format!("shown {tick} {hash}").as_bytes())
                .unwrap();
        }
        writer.confirm(decoder.last_seq());
        seq_tick += 1;
        writer.push(Input {
            tick: seq_tick,
            buttons: Buttons::empty(),
            move_x: 0.0,
            move_y: 0.0,
            yaw: 0.0,
        });
        let ack = writer.content(decoder.ack_tick(), decoder.keyframe_wanted());
        let mut bytes = Vec::new();
        Reference.encode_ack(&ack, &mut bytes).unwrap();
        socket.send(&bytes).unwrap();
    }
    let mut rest = String::new();
    for line in out.lines() {
        rest.push_str(&line.unwrap());
        rest.push('\n');
    }
    let status = server.wait().unwrap();
    (status.success(), rest)
}

#[test]
fn a_client_that_shows_s_n_passes_and_one_that_strays_fails() {
    let (ok, out) = run(0);
    assert!(ok, "{out}");
    let verdict = out.lines().find(|l| l.starts_with("verdict:")).unwrap();
    assert!(verdict.starts_with("verdict: PASS"), "{verdict}");
    assert!(out.contains(" lost, "), "{out}");
    let lost: u64 = out
        .split(" lost")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(lost > 0, "the server drops frames itself: {out}");
    let (ok, out) = run(1);
    assert!(!ok, "{out}");
    assert!(out.contains("MISMATCH"), "{out}");
}
