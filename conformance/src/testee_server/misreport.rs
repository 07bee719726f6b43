//! Acked client halves that do everything right but tell it wrong ([`Fault::EventsTwice`],
//! [`Fault::MeasuredAgainstBase`]): the frames they send and the state they hash are the honest
//! half's, only their reports break one of the acked client's rules (ACK-34, ACK-35), so a runner
//! that passes them does not compare reports.
//!
//! [`Fault::EventsTwice`]: super::Fault::EventsTwice
//! [`Fault::MeasuredAgainstBase`]: super::Fault::MeasuredAgainstBase

use crate::sessions::{Sent, Session};
use ackwire_codec::acked::{
    AckedDecoder, AckedSchema, CodedReference, Delivery, PackedReference, Reference,
};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The halves whose reports can be broken: the acked clients, over kinds 6, 12 and 13.
pub(super) fn wrap(name: &str, events_twice: bool, inner: Box<dyn Session>) -> Box<dyn Session> {
    match (name, events_twice) {
        ("acked_client" | "acked_packed_client" | "acked_coded_client", true) => {
            Box::new(EventsTwice(inner))
        }
        ("acked_client", false) => Box::new(AgainstBase::<Reference>::new(inner)),
        ("acked_packed_client", false) => Box::new(AgainstBase::<PackedReference>::new(inner)),
        ("acked_coded_client", false) => Box::new(AgainstBase::<CodedReference>::new(inner)),
        _ => inner,
    }
}

/// Shows every event a frame carries, those it already showed again, where ACK-35 shows each once,
/// above the newest serial shown.
struct EventsTwice(Box<dyn Session>);

impl Session for EventsTwice {
    fn advance(&mut self, tick: u64, now_ms: u64, ops: &[Value]) -> Result<(), String> {
        self.0.advance(tick, now_ms, ops)
    }

    fn deliver(&mut self, now_ms: u64, frame: &str, bytes: &[u8]) -> Result<Value, String> {
        let mut report = self.0.deliver(now_ms, frame, bytes)?;
        if let Some(shown) = report.get_mut("shown") {
            // A coded frame's changes need its basis; its events do not.
            let value = if frame == crate::coded::FRAME {
                crate::coded::decode_json_without_changes(bytes)
            } else {
                crate::frame_json::decode_json(frame, bytes)
            }
            .map_err(|e| e.to_string())?;
            let first = value["first_serial"].as_u64().unwrap_or(0);
            let events = value["events"].as_array().cloned().unwrap_or_default();
            shown["events"] = events
                .into_iter()
                .zip(first..)
                .map(|(event, serial)| json!({"serial": serial, "event": event}))
                .collect();
        }
        Ok(report)
    }

    fn take(&mut self) -> Vec<Sent> {
        self.0.take()
    }

    fn state_hash(&mut self) -> Option<u32> {
        self.0.state_hash()
    }
}

/// Tells the poses measured against the frame's base rather than the last frame shown, where ACK-34
/// tells them against the last frame shown (a pose repeated after it was shown is not a new
/// measurement). A decoder of its own, fed the same frames, keeps each shown frame's measurement
/// ticks by tick.
struct AgainstBase<S: AckedSchema> {
    inner: Box<dyn Session>,
    decoder: AckedDecoder<S>,
    measured: BTreeMap<u32, BTreeMap<u16, u32>>,
}

impl<S: AckedSchema + Default> AgainstBase<S> {
    fn new(inner: Box<dyn Session>) -> Self {
        AgainstBase {
            inner,
            decoder: AckedDecoder::new(),
            measured: BTreeMap::new(),
        }
    }
}

impl<S: AckedSchema> Session for AgainstBase<S> {
    fn advance(&mut self, tick: u64, now_ms: u64, ops: &[Value]) -> Result<(), String> {
        self.inner.advance(tick, now_ms, ops)
    }

    fn deliver(&mut self, now_ms: u64, frame: &str, bytes: &[u8]) -> Result<Value, String> {
        let mut report = self.inner.deliver(now_ms, frame, bytes)?;
        let (base_tick, keyframe) = match self.decoder.deliver(bytes) {
            Delivery::Shown(r) => (r.base_tick, r.keyframe),
            _ => return Ok(report),
        };
        let Some((tick, state)) = self.decoder.shown() else {
            return Ok(report);
        };
        let now: BTreeMap<u16, u32> = state
            .iter()
            .filter_map(|(eid, record)| self.decoder.schema().measured(&record).map(|t| (eid, t)))
            .collect();
        let empty = BTreeMap::new();
        let base = match self.measured.get(&base_tick) {
            Some(b) if !keyframe => b,
            _ => &empty,
        };
        let told: Vec<String> = now
            .iter()
            .filter(|(eid, t)| base.get(eid) != Some(t))
            .map(|(eid, t)| format!("{eid}@{t}"))
            .collect();
        if let Some(shown) = report.get_mut("shown") {
            shown["measured"] = json!(told.join(" "));
        }
        self.measured.insert(tick, now);
        // A base is one of the frames the decoder holds; older ones are never named again.
        while self.measured.len() > 2 * self.decoder.schema().held_ring() {
            self.measured.pop_first();
        }
        Ok(report)
    }

    fn take(&mut self) -> Vec<Sent> {
        self.inner.take()
    }

    fn state_hash(&mut self) -> Option<u32> {
        self.inner.state_hash()
    }
}
