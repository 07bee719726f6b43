//! The few parts of RFC 6455 a server streaming binary frames needs: the opening handshake
//! (§4.2), and frames read from a client (masked, §5.3) and written to it (unmasked), over any
//! byte stream. No extensions, no fragmented messages (a page's `send` of one ArrayBuffer or
//! string is one frame).
//!
//! Hostile peers: a client frame may carry at most [`MAX_CLIENT_PAYLOAD`] bytes and a request
//! head at most [`MAX_REQUEST_HEAD`]; past either the connection is refused with an error, never
//! buffered further. Every length is checked before it is used.

use std::fmt;

/// The most bytes one client frame may carry: a kind 7 ack is tens of bytes, a report line
/// less; anything larger is refused and the connection closed.
pub const MAX_CLIENT_PAYLOAD: usize = 64 * 1024;

/// The most bytes of an HTTP request head (request line and headers) read before refusing it.
pub const MAX_REQUEST_HEAD: usize = 16 * 1024;

/// RFC 6455 §1.3: the GUID appended to the client's key.
const GUID: &str = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// Why a peer's bytes were refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WsError {
    /// The request head is over [`MAX_REQUEST_HEAD`] bytes.
    HeadTooLong,
    /// A client frame is not masked (RFC 6455 §5.1: "a client MUST mask all frames").
    Unmasked,
    /// A frame's payload is over [`MAX_CLIENT_PAYLOAD`] bytes.
    TooLarge(u64),
    /// A fragmented message, or a reserved bit or opcode.
    Unsupported(u8),
}

impl fmt::Display for WsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WsError::HeadTooLong => write!(f, "request head over {MAX_REQUEST_HEAD} bytes"),
            WsError::Unmasked => write!(f, "a client frame is not masked"),
            WsError::TooLarge(n) => {
                write!(f, "a frame of {n} bytes (at most {MAX_CLIENT_PAYLOAD})")
            }
            WsError::Unsupported(b) => write!(f, "unsupported frame header byte {b:#04x}"),
        }
    }
}

/// An HTTP request head: its path and headers (names lower-cased).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The request target, e.g. `/ws` or `/index.html?x=1`.
    pub path: String,
    /// Headers, names lower-cased, values trimmed.
    pub headers: Vec<(String, String)>,
}

impl Request {
    /// The value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The request head at the start of `buf`, and its length, once it is whole (`Ok(None)` until
/// then).
pub fn parse_request(buf: &[u8]) -> Result<Option<(Request, usize)>, WsError> {
    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
        return if buf.len() > MAX_REQUEST_HEAD {
            Err(WsError::HeadTooLong)
        } else {
            Ok(None)
        };
    };
    if end > MAX_REQUEST_HEAD {
        return Err(WsError::HeadTooLong);
    }
    let text = String::from_utf8_lossy(&buf[..end]);
    let mut lines = text.split("\r\n");
    let path = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .unwrap_or("/")
        .to_string();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Ok(Some((Request { path, headers }, end + 4)))
}

/// The handshake's answer to a client's `Sec-WebSocket-Key` (RFC 6455 §4.2.2): base64 of the
/// SHA-1 of the key and the GUID.
pub fn accept_key(key: &str) -> String {
    let mut sha = sha1_smol::Sha1::new();
    sha.update(key.trim().as_bytes());
    sha.update(GUID.as_bytes());
    base64(&sha.digest().bytes())
}

/// The server's 101 response to an upgrade request carrying `key`.
pub fn handshake_response(key: &str) -> String {
    format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Accept: {}\r\n\r\n",
        accept_key(key)
    )
}

/// Standard base64 with padding (RFC 4648 §4).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// What a client frame holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// A binary message.
    Binary(Vec<u8>),
    /// A text message (bytes as sent; not checked to be UTF-8 here).
    Text(Vec<u8>),
    /// A ping, to be answered with a pong of the same payload.
    Ping(Vec<u8>),
    /// A pong (ignored).
    Pong,
    /// The client closes.
    Close,
}

/// The client frame at the start of `buf`, and its length, once it is whole (`Ok(None)` until
/// then).
pub fn parse_frame(buf: &[u8]) -> Result<Option<(Message, usize)>, WsError> {
    let [b0, b1, ..] = *buf else { return Ok(None) };
    // FIN set, no reserved bits: a message is one frame (fragmentation is not used here).
    if b0 & 0xF0 != 0x80 {
        return Err(WsError::Unsupported(b0));
    }
    if b1 & 0x80 == 0 {
        return Err(WsError::Unmasked);
    }
    let (len, mut at) = match b1 & 0x7F {
        126 => match buf.get(2..4) {
            Some(b) => (u64::from(u16::from_be_bytes([b[0], b[1]])), 4),
            None => return Ok(None),
        },
        127 => match buf.get(2..10) {
            Some(b) => {
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                (u64::from_be_bytes(a), 10)
            }
            None => return Ok(None),
        },
        n => (u64::from(n), 2),
    };
    if len > MAX_CLIENT_PAYLOAD as u64 {
        return Err(WsError::TooLarge(len));
    }
    let len = len as usize;
    let Some(mask) = buf.get(at..at + 4) else {
        return Ok(None);
    };
    let mask = [mask[0], mask[1], mask[2], mask[3]];
    at += 4;
    let Some(payload) = buf.get(at..at + len) else {
        return Ok(None);
    };
    let payload: Vec<u8> = payload
        .iter()
        .enumerate()
        .map(|(i, b)| b ^ mask[i % 4])
        .collect();
    let message = match b0 & 0x0F {
        0x1 => Message::Text(payload),
        0x2 => Message::Binary(payload),
        0x8 => Message::Close,
        0x9 => Message::Ping(payload),
        0xA => Message::Pong,
        _ => return Err(WsError::Unsupported(b0)),
    };
    Ok(Some((message, at + len)))
}

/// A server frame (unmasked, one frame per message) of `opcode` carrying `payload`.
pub fn frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 10);
    out.push(0x80 | (opcode & 0x0F));
    match payload.len() {
        n if n < 126 => out.push(n as u8),
        n if n <= usize::from(u16::MAX) => {
            out.push(126);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            out.push(127);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(payload);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_s_sample_handshake() {
        // RFC 6455 §1.3's example key and answer.
        assert_eq!(
            accept_key("dGhlIHNhbXBsZSBub25jZQ=="),
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    #[test]
    fn requests_parse_once_whole() {
        let head = b"GET /ws HTTP/1.1\r\nHost: x\r\nSec-WebSocket-Key: abc\r\n\r\nrest";
        assert_eq!(parse_request(&head[..20]).unwrap(), None);
        let (r, n) = parse_request(head).unwrap().unwrap();
        assert_eq!(r.path, "/ws");
        assert_eq!(r.header("sec-websocket-key"), Some("abc"));
        assert_eq!(&head[n..], b"rest");
        let long = vec![b'a'; MAX_REQUEST_HEAD + 1];
        assert_eq!(parse_request(&long), Err(WsError::HeadTooLong));
    }

    fn masked(opcode: u8, payload: &[u8]) -> Vec<u8> {
        let mask = [1u8, 2, 3, 4];
        let mut f = frame(opcode, &[]);
        f.truncate(1);
        match payload.len() {
            n if n < 126 => f.push(0x80 | n as u8),
            n => {
                f.push(0x80 | 126);
                f.extend_from_slice(&(n as u16).to_be_bytes());
            }
        }
        f.extend_from_slice(&mask);
        f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        f
    }

    #[test]
    fn client_frames_unmask_and_hostile_ones_are_refused() {
        let f = masked(2, &[7, 1, 2, 3]);
        assert_eq!(parse_frame(&f[..5]).unwrap(), None);
        assert_eq!(
            parse_frame(&f).unwrap(),
            Some((Message::Binary(vec![7, 1, 2, 3]), f.len()))
        );
        let long = masked(1, &[b'x'; 300]);
        assert_eq!(
            parse_frame(&long).unwrap().unwrap().0,
            Message::Text(vec![b'x'; 300])
        );
        assert_eq!(parse_frame(&frame(2, b"ab")), Err(WsError::Unmasked));
        let mut huge = vec![0x82, 0x80 | 127];
        huge.extend_from_slice(&(1u64 << 40).to_be_bytes());
        assert_eq!(parse_frame(&huge), Err(WsError::TooLarge(1 << 40)));
        assert_eq!(
            parse_frame(&[0x02, 0x80, 0, 0, 0, 0]),
            Err(WsError::Unsupported(0x02))
        );
    }

    #[test]
    fn server_frames_carry_their_length() {
        assert_eq!(frame(2, &[9]), vec![0x82, 1, 9]);
        assert_eq!(&frame(2, &[0; 300])[..4], &[0x82, 126, 1, 44]);
        assert_eq!(&frame(2, &[0; 70_000])[..2], &[0x82, 127]);
    }
}
