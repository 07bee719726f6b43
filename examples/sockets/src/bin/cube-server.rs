//! `cube-server`: the cube scene's acked frames over a real socket on 127.0.0.1, to one client.
//!
//! ```text
//! cube-server --transport ws|udp [--scene cube|arena] [--port 0] [--www DIR] [--ticks 240] [--hz 60]
//!             [--loss 0.05] [--duplicate 0.05] [--latency-ms 10] [--jitter-ms 30] [--seed 1]
//!             [--min-reports N] [--timeout-s 60]
//! ```
//!
//! It prints `listening ws http://127.0.0.1:PORT/` (or `listening udp 127.0.0.1:PORT`) once it
//! can be reached: the readiness signal a script waits for. Over `ws` it also serves the files
//! of `--www` over HTTP (the page and its modules), and the page opens `/ws`. Over `udp` the
//! client's first datagram (any: `hello`, or a kind 7 ack) names its address.
//!
//! Then it steps the scene `--ticks` times at `--hz`, one acked frame a tick: the cube scene
//! (kind 6 of the reference protocol), or with `--scene arena` examples/game's arena (the
//! game's own kind 6, from its layout), the client playing player 1. Unreliable frames
//! go through the simulator's [`Link`] (loss, duplication, latency and jitter that reorders,
//! seeded by `--seed`); frames over RELIABLE_ABOVE go straight onto the socket. Over `ws` every
//! tick's truth follows (see [`ackwire_example_sockets::cube::TRUTH`]). It reads back the
//! client's kind 7 acks (binary) and its reports (`shown TICK HASH`, text), logs each tick as
//! `tick N hash H bytes B` and each report as `client tick N hash H ok|MISMATCH`, and once the
//! ticks are done and in-flight frames have landed (half a second), sends a page its verdict
//! line (`verdict: PASS ...`, for whoever watches the page) and says `done` to the client, logs
//! its closing `stats ...` line when one comes within two seconds, prints the verdict and
//! exits: 0 when at least `--min-reports` reports came (default a quarter of the ticks) and
//! every one equals S_N's hash of its tick, 1 otherwise. Every wait
//! is bounded by `--timeout-s`.

use ackwire_example_sockets::arena::ArenaStream;
use ackwire_example_sockets::cube::{CubeStream, TickOut};
use ackwire_example_sockets::websocket::{self, Message};
use ackwire_example_sockets::{parse_report, Judge};
use ackwire_sim::{Link, LinkConfig};
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// What the command line asks.
struct Args {
    transport: String,
    /// `cube` or `arena`.
    scene: String,
    port: u16,
    www: Option<PathBuf>,
    ticks: u32,
    hz: u32,
    link: LinkConfig,
    seed: u64,
    min_reports: Option<u64>,
    timeout: Duration,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        transport: String::new(),
        scene: "cube".into(),
        port: 0,
        www: None,
        ticks: 240,
        hz: 60,
        link: LinkConfig::lossy(0.05, 0.05, 10, 30),
        seed: 1,
        min_reports: None,
        timeout: Duration::from_secs(60),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        let num = |v: String| -> Result<f64, String> {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| format!("{flag}: `{v}` is not a non-negative number"))
        };
        match flag.as_str() {
            "--transport" => a.transport = value()?,
            "--scene" => a.scene = value()?,
            "--port" => a.port = num(value()?)? as u16,
            "--www" => a.www = Some(PathBuf::from(value()?)),
            "--ticks" => a.ticks = num(value()?)? as u32,
            "--hz" => a.hz = (num(value()?)? as u32).clamp(1, 1000),
            "--loss" => a.link.loss = num(value()?)?.min(1.0),
            "--duplicate" => a.link.duplicate = num(value()?)?.min(1.0),
            "--latency-ms" => a.link.latency_ms = num(value()?)? as u64,
            "--jitter-ms" => a.link.jitter_ms = num(value()?)? as u64,
            "--seed" => a.seed = num(value()?)? as u64,
            "--min-reports" => a.min_reports = Some(num(value()?)? as u64),
            "--timeout-s" => a.timeout = Duration::from_secs(num(value()?)? as u64),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if a.transport != "ws" && a.transport != "udp" {
        return Err("--transport ws or --transport udp".into());
    }
    if a.scene != "cube" && a.scene != "arena" {
        return Err("--scene cube or --scene arena".into());
    }
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("cube-server: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("cube-server: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A line on standard output, flushed at once (a script reads it as it comes).
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// The one client's socket.
enum Peer {
    Ws {
        stream: TcpStream,
        inbox: Vec<u8>,
        listener: TcpListener,
        www: Option<PathBuf>,
    },
    Udp {
        socket: UdpSocket,
        to: SocketAddr,
    },
}

/// What the client sent.
enum FromClient {
    Ack(Vec<u8>),
    Report(String),
    Closed,
}

impl Peer {
    fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        match self {
            Peer::Ws { stream, .. } => {
                // Blocking writes: TCP's own back-pressure, as a reliable stream has.
                stream.set_nonblocking(false).map_err(|e| e.to_string())?;
                let r = stream.write_all(&websocket::frame(2, bytes));
                stream.set_nonblocking(true).map_err(|e| e.to_string())?;
                r.map_err(|e| format!("writing to the page: {e}"))
            }
            Peer::Udp { socket, to } => match socket.send_to(bytes, *to) {
                Ok(_) => Ok(()),
                // A loopback socket whose buffer is full loses the datagram, as UDP may.
                Err(e) if e.kind() == ErrorKind::WouldBlock => Ok(()),
                Err(e) => Err(format!("sending to {to}: {e}")),
            },
        }
    }

    fn send_text(&mut self, text: &str) {
        match self {
            Peer::Ws { stream, .. } => {
                let _ = stream.set_nonblocking(false);
                let _ = stream.write_all(&websocket::frame(1, text.as_bytes()));
            }
            Peer::Udp { socket, to } => {
                let _ = socket.send_to(text.as_bytes(), *to);
            }
        }
    }

    /// Everything the client has sent so far, without waiting.
    fn receive(&mut self, out: &mut Vec<FromClient>) -> Result<(), String> {
        match self {
            Peer::Ws {
                stream,
                inbox,
                listener,
                www,
            } => {
                // Late requests (a favicon) are answered while streaming.
                if let Ok((s, _)) = listener.accept() {
                    let _ = serve_http(s, www.as_deref(), None);
                }
                let mut buf = [0u8; 4096];
                loop {
                    match stream.read(&mut buf) {
                        Ok(0) => {
                            out.push(FromClient::Closed);
                            break;
                        }
                        Ok(n) => inbox.extend_from_slice(&buf[..n]),
                        Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                        Err(e) => return Err(format!("reading from the page: {e}")),
                    }
                }
                while let Some((message, used)) =
                    websocket::parse_frame(inbox).map_err(|e| format!("the page sent {e}"))?
                {
                    inbox.drain(..used);
                    match message {
                        Message::Binary(b) => out.push(FromClient::Ack(b)),
                        Message::Text(t) => {
                            out.push(FromClient::Report(String::from_utf8_lossy(&t).into()))
                        }
                        Message::Ping(p) => {
                            let _ = stream.write_all(&websocket::frame(0xA, &p));
                        }
                        Message::Pong => {}
                        Message::Close => out.push(FromClient::Closed),
                    }
                }
                Ok(())
            }
            Peer::Udp { socket, to } => {
                let mut buf = [0u8; 2048];
                loop {
                    match socket.recv_from(&mut buf) {
                        // Only the client's address is listened to.
                        Ok((n, from)) if from == *to => {
                            let d = &buf[..n];
                            if d.first() == Some(&7) {
                                out.push(FromClient::Ack(d.to_vec()));
                            } else {
                                out.push(FromClient::Report(String::from_utf8_lossy(d).into()));
                            }
                        }
                        Ok(_) => {}
                        Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(()),
                        // Linux reports an ICMP port unreachable of an earlier send here.
                        Err(e) if e.kind() == ErrorKind::ConnectionRefused => {
                            out.push(FromClient::Closed);
                            return Ok(());
                        }
                        Err(e) => return Err(format!("receiving: {e}")),
                    }
                }
            }
        }
    }
}

/// The file of `www` a request path names, when it names one inside it.
fn file_of(www: &Path, path: &str) -> Option<PathBuf> {
    let path = path.split(['?', '#']).next().unwrap_or("/");
    let rel = path.trim_start_matches('/');
    let rel = if rel.is_empty() { "index.html" } else { rel };
    let rel = Path::new(rel);
    // Nothing outside the folder: only plain names.
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    Some(www.join(rel))
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") | Some("mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css",
        Some("json") | Some("map") => "application/json",
        _ => "application/octet-stream",
    }
}

/// Reads one HTTP request from `s` and answers it: a file of `www`, a 404, or (when `upgrade`
/// is given and the request asks for `/ws`) the WebSocket handshake, handing back the stream.
fn serve_http(
    mut s: TcpStream,
    www: Option<&Path>,
    upgrade: Option<()>,
) -> Result<Option<(TcpStream, Vec<u8>)>, String> {
    s.set_nonblocking(false).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(5)))
        .map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 2048];
    let (request, used) = loop {
        if let Some(r) = websocket::parse_request(&buf).map_err(|e| e.to_string())? {
            break r;
        }
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return Ok(None),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let wants_ws = request
        .header("upgrade")
        .is_some_and(|u| u.eq_ignore_ascii_case("websocket"));
    if wants_ws && upgrade.is_some() && request.path.starts_with("/ws") {
        let key = request
            .header("sec-websocket-key")
            .ok_or("an upgrade without Sec-WebSocket-Key")?;
        s.write_all(websocket::handshake_response(key).as_bytes())
            .map_err(|e| e.to_string())?;
        s.set_nonblocking(true).map_err(|e| e.to_string())?;
        return Ok(Some((s, buf[used..].to_vec())));
    }
    let file = www.and_then(|w| file_of(w, &request.path));
    let response = match file
        .as_ref()
        .and_then(|f| std::fs::read(f).ok().map(|b| (f, b)))
    {
        Some((f, body)) => {
            let mut r = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
                content_type(f),
                body.len()
            )
            .into_bytes();
            r.extend_from_slice(&body);
            r
        }
        None => {
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec()
        }
    };
    let _ = s.write_all(&response);
    Ok(None)
}

/// Binds and waits (at most `timeout`) for the client.
fn connect(args: &Args) -> Result<Peer, String> {
    let deadline = Instant::now() + args.timeout;
    match args.transport.as_str() {
        "ws" => {
            let listener = TcpListener::bind(("127.0.0.1", args.port))
                .map_err(|e| format!("binding 127.0.0.1:{}: {e}", args.port))?;
            let port = listener.local_addr().map_err(|e| e.to_string())?.port();
            listener.set_nonblocking(true).map_err(|e| e.to_string())?;
            say(&format!("listening ws http://127.0.0.1:{port}/"));
            loop {
                if Instant::now() > deadline {
                    return Err(format!(
                        "no page opened /ws within {} s",
                        args.timeout.as_secs()
                    ));
                }
                match listener.accept() {
                    Ok((s, _)) => {
                        if let Some((stream, inbox)) = serve_http(s, args.www.as_deref(), Some(()))?
                        {
                            say("client connected (websocket)");
                            return Ok(Peer::Ws {
                                stream,
                                inbox,
                                listener,
                                www: args.www.clone(),
                            });
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(2))
                    }
                    Err(e) => return Err(format!("accepting: {e}")),
                }
            }
        }
        _ => {
            let socket = UdpSocket::bind(("127.0.0.1", args.port))
                .map_err(|e| format!("binding 127.0.0.1:{}: {e}", args.port))?;
            let port = socket.local_addr().map_err(|e| e.to_string())?.port();
            say(&format!("listening udp 127.0.0.1:{port}"));
            let mut buf = [0u8; 2048];
            let wait = deadline.saturating_duration_since(Instant::now());
            socket
                .set_read_timeout(Some(wait.max(Duration::from_millis(1))))
                .map_err(|e| e.to_string())?;
            let (_, to) = socket.recv_from(&mut buf).map_err(|e| {
                format!(
                    "no datagram from a client within {} s: {e}",
                    args.timeout.as_secs()
                )
            })?;
            socket.set_nonblocking(true).map_err(|e| e.to_string())?;
            say(&format!("client connected (udp {to})"));
            Ok(Peer::Udp { socket, to })
        }
    }
}

/// The scene streamed: the cube scene through the reference's acked half, or the arena.
enum Stream {
    Cube(Box<CubeStream>),
    Arena(Box<ArenaStream>),
}

impl Stream {
    fn tick(&self) -> u32 {
        match self {
            Stream::Cube(s) => s.tick(),
            Stream::Arena(s) => s.tick(),
        }
    }

    fn step(&mut self, now_ms: u64) -> Result<TickOut, String> {
        match self {
            Stream::Cube(s) => s.step(now_ms),
            Stream::Arena(s) => s.step(),
        }
    }

    fn ack(&mut self, now_ms: u64, bytes: &[u8]) -> Result<(), String> {
        match self {
            Stream::Cube(s) => s.ack(now_ms, bytes).map(|_| ()).map_err(|e| e.to_string()),
            Stream::Arena(s) => s.ack(bytes),
        }
    }

    /// The cube scene's truth message for the page; the arena's page has none.
    fn truth(&self) -> Option<Vec<u8>> {
        match self {
            Stream::Cube(s) => Some(s.truth()),
            Stream::Arena(_) => None,
        }
    }
}

fn run(args: &Args) -> Result<bool, String> {
    let mut peer = connect(args)?;
    let mut stream = match args.scene.as_str() {
        "arena" => Stream::Arena(Box::new(ArenaStream::new(args.seed))),
        _ => Stream::Cube(Box::new(CubeStream::new(args.seed))),
    };
    let mut link = Link::new(args.link, args.seed);
    let mut judge = Judge::default();
    let (mut acks, mut bad_acks, mut bytes) = (0u64, 0u64, 0u64);
    let tick_ms = 1000.0 / f64::from(args.hz);
    let drain_ms = 500u64;
    let epoch = Instant::now();
    let deadline = epoch + args.timeout;
    let mut from_client = Vec::new();
    let mut closed = false;
    loop {
        let now_ms = epoch.elapsed().as_millis() as u64;
        let last_ms = (f64::from(args.ticks) * tick_ms) as u64;
        if stream.tick() >= args.ticks && now_ms > last_ms + drain_ms {
            break;
        }
        if closed || Instant::now() > deadline {
            break;
        }
        let due = ((now_ms as f64) / tick_ms) as u32;
        while stream.tick() < args.ticks.min(due) {
            let out = stream.step(now_ms)?;
            judge.server(out.tick, out.hash);
            let size: usize = out.frames.iter().map(|f| f.bytes.len()).sum();
            bytes += size as u64;
            say(&format!("tick {} hash {} bytes {size}", out.tick, out.hash));
            for f in out.frames {
                if f.reliable {
                    peer.send(&f.bytes)?;
                } else {
                    link.send(now_ms, f.bytes);
                }
            }
            if matches!(peer, Peer::Ws { .. }) {
                if let Some(truth) = stream.truth() {
                    peer.send(&truth)?;
                }
            }
        }
        while let Some(p) = link.poll(now_ms) {
            peer.send(&p)?;
        }
        from_client.clear();
        peer.receive(&mut from_client)?;
        for m in from_client.drain(..) {
            match m {
                FromClient::Ack(b) => match stream.ack(now_ms, &b) {
                    Ok(_) => acks += 1,
                    // A hostile or broken ack is counted and dropped, never fatal.
                    Err(_) => bad_acks += 1,
                },
                FromClient::Report(text) => match parse_report(&text) {
                    Some((tick, hash)) => {
                        let ok = judge.client(tick, hash);
                        say(&format!(
                            "client tick {tick} hash {hash} {}",
                            if ok { "ok" } else { "MISMATCH" }
                        ));
                    }
                    None if text.trim() == "hello" => {}
                    None => say(&format!("client said {:?}", text.trim())),
                },
                FromClient::Closed => closed = true,
            }
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let min = args.min_reports.unwrap_or(u64::from(args.ticks / 4));
    let (ok, verdict) = judge.verdict(min);
    // The page shows the verdict to whoever watches it; a native client reads only frames.
    if matches!(peer, Peer::Ws { .. }) {
        peer.send_text(&verdict);
    }
    peer.send_text("done");
    // The client's closing words (the page's frames, bytes and render error), for the log: at
    // most two seconds, until it closes.
    let words_until = Instant::now() + Duration::from_secs(2);
    while !closed && Instant::now() < words_until {
        from_client.clear();
        if peer.receive(&mut from_client).is_err() {
            break;
        }
        for m in from_client.drain(..) {
            match m {
                FromClient::Report(text) if text.starts_with("stats ") => {
                    say(&format!("client {}", text.trim()));
                    closed = true;
                }
                FromClient::Closed => closed = true,
                _ => {}
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let stats = link.stats();
    say(&format!(
        "sent {} ticks, {bytes} bytes; link: {} unreliable sent, {} lost, {} duplicated, {} reordered; {acks} acks read, {bad_acks} refused",
        stream.tick(),
        stats.sent,
        stats.lost,
        stats.duplicated,
        stats.reordered
    ));
    say(&verdict);
    Ok(ok)
}
