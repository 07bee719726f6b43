//! The world a connection replicates: entities by slot and generation, each with at most one value
//! of each of its schema's component types and that value's encoded bits.

use super::schema::{BaselineSchema, EncodedValues};
use super::ReferenceBaseline;
use crate::EncodeError;
use std::collections::BTreeMap;

/// An entity: a slot and the occupant's generation. Ordered by slot, then generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct EntityId {
    /// The slot (24 bits on the wire).
    pub slot: u32,
    /// The occupant's generation.
    pub generation: u8,
}

/// One live entity of a [`Scene`].
#[derive(Debug, Clone, PartialEq)]
pub struct SceneEntity<S: BaselineSchema = ReferenceBaseline> {
    /// The occupant's generation.
    pub generation: u8,
    /// The client that owns it, if any.
    pub owner: Option<u32>,
    /// Its components by schema index, each with its encoded bits.
    pub components: EncodedValues<S>,
}

/// Why the scene refused an operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SceneError {
    /// The slot does not fit 24 bits.
    #[error("slot {0} does not fit 24 bits")]
    SlotTooLarge(u32),
    /// No entity lives in the slot.
    #[error("slot {0} is empty")]
    Empty(u32),
    /// The value does not encode (out of its field's range).
    #[error("the component does not encode: {0}")]
    Encode(#[from] EncodeError),
    /// The schema gave the value a component type it does not have.
    #[error("component type {0} is not in the schema")]
    UnknownComponent(usize),
}

/// The world: at most one live occupant per slot.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene<S: BaselineSchema = ReferenceBaseline> {
    entities: BTreeMap<u32, SceneEntity<S>>,
}

impl<S: BaselineSchema> Default for Scene<S> {
    fn default() -> Self {
        Scene {
            entities: BTreeMap::new(),
        }
    }
}

impl<S: BaselineSchema> Scene<S> {
    /// An empty world of `schema`.
    pub fn with_schema(_schema: S) -> Self {
        Self::default()
    }

    /// Puts a new occupant in `slot` (replacing any), with no components.
    pub fn spawn(&mut self, entity: EntityId, owner: Option<u32>) -> Result<(), SceneError> {
        if entity.slot >= 1 << 24 {
            return Err(SceneError::SlotTooLarge(entity.slot));
        }
        self.entities.insert(
            entity.slot,
            SceneEntity {
                generation: entity.generation,
                owner,
                components: Default::default(),
            },
        );
        Ok(())
    }

    /// Removes the occupant of `slot`.
    pub fn despawn(&mut self, slot: u32) -> Option<SceneEntity<S>> {
        self.entities.remove(&slot)
    }

    /// Sets a component of the occupant of `slot`.
    pub fn set(&mut self, slot: u32, value: S::Value) -> Result<(), SceneError> {
        let bits = S::bits(&value)?;
        let e = self
            .entities
            .get_mut(&slot)
            .ok_or(SceneError::Empty(slot))?;
        let i = S::index(&value);
        let held = e
            .components
            .as_mut()
            .get_mut(i)
            .ok_or(SceneError::UnknownComponent(i))?;
        *held = Some((value, bits));
        Ok(())
    }

    /// Whether `entity` (that slot, that generation) is alive.
    pub fn alive(&self, entity: EntityId) -> bool {
        self.entities
            .get(&entity.slot)
            .is_some_and(|e| e.generation == entity.generation)
    }

    /// The occupant of `slot`.
    pub fn get(&self, slot: u32) -> Option<&SceneEntity<S>> {
        self.entities.get(&slot)
    }

    /// The live entities, ascending by slot.
    pub fn iter(&self) -> impl Iterator<Item = (EntityId, &SceneEntity<S>)> {
        self.entities.iter().map(|(slot, e)| {
            (
                EntityId {
                    slot: *slot,
                    generation: e.generation,
                },
                e,
            )
        })
    }

    /// How many entities live.
    pub fn len(&self) -> usize {
        self.entities.len()
    }

    /// Whether none lives.
    pub fn is_empty(&self) -> bool {
        self.entities.is_empty()
    }
}
