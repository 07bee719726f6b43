//! [`Agreement`]: the outcome of comparing the digest a mirror reports with the digest of the
//! state the server believes it holds.
//!
//! `Agreement` is one of the types both sides of a delta stream share (SRV-1), and DELTA-15 says
//! what a disagreement means: the next plan is a full rebuild. One type for the comparison, so the
//! server's drift check, a client checking a digest the server shipped, and a harness counting
//! mismatches all ask the same question the same way.

/// The outcome of one digest comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Agreement {
    /// The digests are equal: the mirror holds the state it was believed to hold (as far as a
    /// 64-bit digest can tell).
    Agrees,
    /// The digests differ: the mirror is not in the state it was believed to hold.
    Disagrees {
        /// The digest of the state the mirror should hold.
        expected: u64,
        /// The digest the mirror reported.
        reported: u64,
    },
    /// Not compared: the digest describes a state the comparer cannot name (DELTA-15: compared only
    /// once the frontier has reached the newest packet reported), or the drift check is off, or the
    /// policy has none.
    Unchecked,
}

impl Agreement {
    /// Compares the digest `reported` with the digest `expected` of the state believed held.
    #[must_use]
    pub const fn compare(expected: u64, reported: u64) -> Self {
        if expected == reported {
            Self::Agrees
        } else {
            Self::Disagrees { expected, reported }
        }
    }

    /// Whether the digests were compared and differ: a drift.
    #[must_use]
    pub const fn is_disagreement(&self) -> bool {
        matches!(self, Self::Disagrees { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::SetDigest;

    #[test]
    fn equal_digests_agree_and_different_ones_say_both() {
        let held = SetDigest::from_keys([1, 2, 3]).digest();
        assert_eq!(Agreement::compare(held, held), Agreement::Agrees);
        let lost = SetDigest::from_keys([1, 3]).digest();
        let a = Agreement::compare(held, lost);
        assert_eq!(
            a,
            Agreement::Disagrees {
                expected: held,
                reported: lost
            }
        );
        assert!(a.is_disagreement());
        assert!(!Agreement::Agrees.is_disagreement() && !Agreement::Unchecked.is_disagreement());
    }

    #[test]
    fn a_mirror_compares_its_own_digest_with_the_servers() {
        use crate::delta::{DeltaMirror, SlotKey};
        let mut m = DeltaMirror::<()>::new();
        m.insert(SlotKey::new(1, 0), ())
            .expect("far under the limit");
        let server = SetDigest::from_keys([SlotKey::new(1, 0).encode()]).digest();
        assert_eq!(m.agreement_with(server), Agreement::Agrees);
        // A respawn the server does not know of.
        m.insert(SlotKey::new(1, 1), ())
            .expect("far under the limit");
        assert!(m.agreement_with(server).is_disagreement());
    }
}
