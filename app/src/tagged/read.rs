//! Reading the tagged forms, tag first; fields before their tag are buffered on native builds.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize as _;
use serde::de::value::{MapAccessDeserializer, StrDeserializer, UnitDeserializer};
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, IntoDeserializer, MapAccess,
    VariantAccess, Visitor,
};

use super::{SharedFields, Text, Variants};

pub fn deserialize_internally<'de, T: Variants, D: Deserializer<'de>>(
    deserializer: D,
    tag: &'static str,
) -> Result<T, D::Error> {
    deserializer.deserialize_map(InternallyTaggedVisitor {
        tag,
        marker: PhantomData,
    })
}

pub fn deserialize_adjacently<'de, T: Variants, D: Deserializer<'de>>(
    deserializer: D,
    tag: &'static str,
    content: &'static str,
) -> Result<T, D::Error> {
    deserializer.deserialize_map(AdjacentlyTaggedVisitor {
        tag,
        content,
        marker: PhantomData,
    })
}

/// Reads an internally tagged object whose keys may include `shared` fields anywhere.
/// Keys before the tag must be shared fields.
pub fn read_tagged_object<'de, T: Variants, A: MapAccess<'de>, F: SharedFields>(
    mut map: A,
    tag: &'static str,
    shared: &mut F,
) -> Result<T, A::Error> {
    let mut early = Early::default();
    while let Some(Text(key)) = map.next_key()? {
        if key == tag {
            let Text(variant) = map.next_value()?;
            let mut fields = SharedFieldFilter { map, shared };
            if !early.is_empty() {
                return early.read_with_rest(&variant, &mut fields);
            }
            return T::deserialize_external(Named {
                variant: &variant,
                fields: MapAccessDeserializer::new(fields),
            });
        }
        if !shared.read(&key, &mut map)? {
            early.keep(key.into_owned(), tag, &mut map)?;
        }
    }
    Err(de::Error::missing_field(tag))
}

/// Fields met before their tag.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Default)]
struct Early(serde_json::Map<String, serde_json::Value>);

#[cfg(not(target_arch = "wasm32"))]
impl Early {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn keep<'de, A: MapAccess<'de>>(
        &mut self,
        key: String,
        _tag: &str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        self.0.insert(key, map.next_value()?);
        Ok(())
    }

    /// Reads the variant from these fields and the rest of `map`.
    fn read_with_rest<'de, T: Variants, A: MapAccess<'de>>(
        mut self,
        variant: &str,
        map: &mut A,
    ) -> Result<T, A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            self.0.insert(key, map.next_value()?);
        }
        Self::read(variant, serde_json::Value::Object(self.0))
    }

    fn read<T: Variants, E: de::Error>(variant: &str, fields: serde_json::Value) -> Result<T, E> {
        T::deserialize_external(Named { variant, fields }).map_err(E::custom)
    }
}

/// The browser reads only what the server wrote, tag first: nothing is buffered.
#[cfg(target_arch = "wasm32")]
#[derive(Default)]
struct Early;

#[cfg(target_arch = "wasm32")]
impl Early {
    fn is_empty(&self) -> bool {
        true
    }

    fn keep<'de, A: MapAccess<'de>>(
        &mut self,
        key: String,
        tag: &str,
        _: &mut A,
    ) -> Result<(), A::Error> {
        Err(de::Error::custom(format_args!(
            "field \"{key}\" comes before \"{tag}\"; the \"{tag}\" field must come first"
        )))
    }

    fn read_with_rest<'de, T: Variants, A: MapAccess<'de>>(
        self,
        _: &str,
        _: &mut A,
    ) -> Result<T, A::Error> {
        Err(de::Error::custom("no fields are kept before a tag"))
    }
}

/// A tag and its content met among other keys of one object, as an adjacently tagged
/// enum or a struct that holds one (the content is read once its tag is known).
pub struct TagAndContent<'de, T> {
    tag: &'static str,
    content: &'static str,
    variant: Option<Cow<'de, str>>,
    value: Option<T>,
    #[cfg(not(target_arch = "wasm32"))]
    early_content: Option<serde_json::Value>,
}

impl<'de, T: Variants> TagAndContent<'de, T> {
    pub fn new(tag: &'static str, content: &'static str) -> Self {
        Self {
            tag,
            content,
            variant: None,
            value: None,
            #[cfg(not(target_arch = "wasm32"))]
            early_content: None,
        }
    }

    /// Reads the value of `key` when it is the tag or the content.
    pub fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        if key == self.tag {
            self.variant = Some(map.next_value::<Text<'de>>()?.0);
        } else if key == self.content {
            let Some(variant) = &self.variant else {
                #[cfg(not(target_arch = "wasm32"))]
                {
                    self.early_content = Some(map.next_value()?);
                    return Ok(true);
                }
                #[cfg(target_arch = "wasm32")]
                return Err(de::Error::custom(format_args!(
                    "\"{}\" comes before \"{}\"; the \"{}\" field must come first",
                    self.content, self.tag, self.tag
                )));
            };
            self.value = Some(map.next_value_seed(VariantSeed {
                variant,
                marker: PhantomData,
            })?);
        } else {
            return Ok(false);
        }
        Ok(true)
    }

    pub fn finish<E: de::Error>(self) -> Result<T, E> {
        #[cfg(not(target_arch = "wasm32"))]
        if let (Some(fields), Some(variant)) = (self.early_content, &self.variant) {
            return Early::read(variant, fields);
        }
        match (self.value, self.variant) {
            (Some(value), _) => Ok(value),
            // A variant without fields may leave its content out.
            (None, Some(variant)) => T::deserialize_external(Named {
                variant: &variant,
                fields: UnitDeserializer::<E>::new(),
            })
            .map_err(|_| E::missing_field(self.content)),
            (None, None) => Err(E::missing_field(self.tag)),
        }
    }
}

struct InternallyTaggedVisitor<T> {
    tag: &'static str,
    marker: PhantomData<T>,
}

impl<'de, T: Variants> Visitor<'de> for InternallyTaggedVisitor<T> {
    type Value = T;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        write!(formatter, "an object with a \"{}\" field", self.tag)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        read_tagged_object(map, self.tag, &mut ())
    }
}

struct AdjacentlyTaggedVisitor<T> {
    tag: &'static str,
    content: &'static str,
    marker: PhantomData<T>,
}

impl<'de, T: Variants> Visitor<'de> for AdjacentlyTaggedVisitor<T> {
    type Value = T;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        write!(
            formatter,
            "an object with \"{}\" and \"{}\" fields",
            self.tag, self.content
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut pair = TagAndContent::new(self.tag, self.content);
        while let Some(Text(key)) = map.next_key()? {
            if !pair.read(&key, &mut map)? {
                map.next_value::<IgnoredAny>()?;
            }
        }
        pair.finish()
    }
}

/// Reads one variant's fields, its name known.
struct VariantSeed<'a, T> {
    variant: &'a str,
    marker: PhantomData<T>,
}

impl<'de, T: Variants> DeserializeSeed<'de> for VariantSeed<'_, T> {
    type Value = T;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<T, D::Error> {
        T::deserialize_external(Named {
            variant: self.variant,
            fields: deserializer,
        })
    }
}

/// A map that hands the keys of `shared` fields to them and the rest on.
struct SharedFieldFilter<'s, A, F> {
    map: A,
    shared: &'s mut F,
}

impl<'de, A: MapAccess<'de>, F: SharedFields> MapAccess<'de> for SharedFieldFilter<'_, A, F> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        while let Some(Text(key)) = self.map.next_key()? {
            if !self.shared.read(&key, &mut self.map)? {
                return seed.deserialize(StrDeserializer::new(&key)).map(Some);
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

/// An enum value given as its variant's name and a deserializer of its fields: what an
/// externally tagged derive reads.
struct Named<'a, D> {
    variant: &'a str,
    fields: D,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Named<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        visitor.visit_enum(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

impl<'a, 'de, D: Deserializer<'de>> EnumAccess<'de> for Named<'a, D> {
    type Error = D::Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), D::Error> {
        let name: StrDeserializer<'a, D::Error> = self.variant.into_deserializer();
        Ok((seed.deserialize(name)?, self))
    }
}

impl<'de, D: Deserializer<'de>> VariantAccess<'de> for Named<'_, D> {
    type Error = D::Error;

    fn unit_variant(self) -> Result<(), D::Error> {
        IgnoredAny::deserialize(self.fields).map(drop)
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, D::Error> {
        seed.deserialize(self.fields)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, D::Error> {
        self.fields.deserialize_tuple(len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.fields.deserialize_struct("", fields, visitor)
    }
}
