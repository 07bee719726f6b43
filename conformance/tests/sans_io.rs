//! GEN-4: the session machines are sans-IO in every language. Their sources (the Rust codec,
//! runtime and server primitives, and the TypeScript, C++ and C# runtimes) name no clock, socket
//! or thread API: time and frames come in as arguments, what to send goes out as return values.

use std::path::{Path, PathBuf};

/// The calls Rust reads a clock, opens a socket or starts a thread with.
const RUST: &[&str] = &[
    "Instant::now",
    "SystemTime",
    "std::net",
    "UdpSocket",
    "TcpStream",
    "std::thread",
    "thread::spawn",
];

/// The folders holding session machines, from the repository root, and the calls each
/// language reads a clock, opens a socket or starts a thread with.
const SOURCES: &[(&str, &[&str])] = &[
    ("codec/src", RUST),
    ("rt/src", RUST),
    ("server/src", RUST),
    (
        "typescript/src",
        &[
            "Date.now",
            "performance.now",
            "new Date(",
            "setTimeout",
            "setInterval",
            "node:dgram",
            "node:net",
            "new Worker(",
        ],
    ),
    (
        "cpp/include",
        &[
            "steady_clock",
            "system_clock",
            "high_resolution_clock",
            "std::thread",
            "<thread>",
            "socket(",
            "<sys/socket.h>",
        ],
    ),
    (
        "csharp/src",
        &[
            "DateTime.Now",
            "DateTime.UtcNow",
            "Stopwatch",
            "Environment.TickCount",
            "new Thread(",
            "Task.Run",
            "System.Net.Sockets",
        ],
    ),
];

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| ["rs", "ts", "hpp", "cs"].contains(&e.to_string_lossy().as_ref()))
        {
            out.push(path);
        }
    }
}

#[test]
fn no_session_machine_reads_a_clock_opens_a_socket_or_starts_a_thread() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    let mut scanned = 0;
    for (dir, calls) in SOURCES {
        let mut paths = Vec::new();
        files(&root.join(dir), &mut paths);
        assert!(!paths.is_empty(), "{dir} holds no sources");
        for path in paths {
            scanned += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, line) in text.lines().enumerate() {
                let code = line.trim_start();
                if code.starts_with("//") || code.starts_with('*') || code.starts_with("/*") {
                    continue;
                }
                for call in *calls {
                    if code.contains(call) {
                        found.push(format!("{}:{}: {call}", path.display(), i + 1));
                    }
                }
            }
        }
    }
    assert!(scanned > 50, "{scanned} files");
    assert!(found.is_empty(), "{}", found.join("\n"));
}
