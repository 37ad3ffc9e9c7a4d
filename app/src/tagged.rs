//! Internally and adjacently tagged JSON forms for enums, read and written through each
//! enum's externally tagged derive (`#[serde(remote = "Self")]`).
//!
//! Serde's own tagged derives read every variant through a buffered content tree (the
//! tag may come last), and that generic path is compiled into the browser bundle once per
//! enum. Every writer of these forms puts the tag first, so the fields are read straight
//! from the JSON reader. Fields that come before their tag (a `serde_json::Value` keeps
//! keys sorted) are buffered and read afterwards on native builds — server, CLI, tests;
//! the browser bundle, which reads only what the server wrote, leaves that second path
//! out and refuses such an object with an error that says so.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize as _;
use serde::de::value::{MapAccessDeserializer, StrDeserializer, UnitDeserializer};
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, IntoDeserializer, MapAccess,
    VariantAccess, Visitor,
};
use serde::ser::{
    self, Impossible, Serialize, SerializeStruct, SerializeStructVariant, Serializer,
};

/// A JSON string (an object key or a tag) that stays borrowed from the input unless it
/// had escapes: reading an object's keys allocates nothing.
pub struct Text<'a>(pub Cow<'a, str>);

impl<'de> de::Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(text)))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(text.to_owned())))
            }
            fn visit_string<E: de::Error>(self, text: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(text)))
            }
        }
        deserializer.deserialize_str(TextVisitor)
    }
}

/// An enum whose externally tagged derive reads one variant from its name and fields.
pub trait Variants: Sized {
    fn deserialize_external<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;

    fn serialize_external<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
}

/// Gives an enum with `#[serde(remote = "Self")]` (its derive externally tagged) the
/// internally tagged form `{"<tag>": "<variant>", ...fields}`.
macro_rules! internally_tagged {
    ($enum:ident, $tag:literal) => {
        $crate::tagged::variants!($enum);

        impl serde::Serialize for $enum {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                $crate::tagged::serialize_internally(self, $tag, serializer)
            }
        }

        impl<'de> serde::Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                $crate::tagged::deserialize_internally(deserializer, $tag)
            }
        }
    };
}

/// Gives an enum with `#[serde(remote = "Self")]` the adjacently tagged form
/// `{"<tag>": "<variant>", "<content>": fields}`.
macro_rules! adjacently_tagged {
    ($enum:ident, $tag:literal, $content:literal) => {
        $crate::tagged::variants!($enum);

        impl serde::Serialize for $enum {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                $crate::tagged::serialize_adjacently(self, $tag, $content, serializer)
            }
        }

        impl<'de> serde::Deserialize<'de> for $enum {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                $crate::tagged::deserialize_adjacently(deserializer, $tag, $content)
            }
        }
    };
}

macro_rules! variants {
    ($enum:ident) => {
        impl $crate::tagged::Variants for $enum {
            fn deserialize_external<'de, D: serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Self, D::Error> {
                // The inherent function the remote derive wrote, not the trait's.
                $enum::deserialize(deserializer)
            }

            fn serialize_external<S: serde::Serializer>(
                &self,
                serializer: S,
            ) -> Result<S::Ok, S::Error> {
                $enum::serialize(self, serializer)
            }
        }
    };
}

pub(crate) use {adjacently_tagged, internally_tagged, variants};

pub fn serialize_internally<T: Variants, S: Serializer>(
    value: &T,
    tag: &'static str,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    value.serialize_external(VariantAsStruct {
        tag: Some(tag),
        inner: serializer,
    })
}

pub fn serialize_adjacently<T: Variants, S: Serializer>(
    value: &T,
    tag: &'static str,
    content: &'static str,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let variant = variant_name(value).map_err(ser::Error::custom)?;
    let mut object = serializer.serialize_struct("", 2)?;
    object.serialize_field(tag, variant)?;
    object.serialize_field(content, &Content(value))?;
    object.end()
}

/// The name a value's variant is written with, as its derive spells it.
pub fn variant_name<T: Variants>(value: &T) -> Result<&'static str, NotAVariant> {
    value.serialize_external(VariantName)
}

/// The fields of a variant, written as a plain object: the content of an adjacently
/// tagged form.
pub struct Content<'a, T>(pub &'a T);

impl<T: Variants> Serialize for Content<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize_external(VariantAsStruct {
            tag: None,
            inner: serializer,
        })
    }
}

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

/// Fields of an outer struct that share one JSON object with an enum's fields (what
/// `#[serde(flatten)]` would do).
pub trait SharedFields {
    /// Reads the value of `key` when the key is one of these fields.
    fn read<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error>;
}

impl SharedFields for () {
    fn read<'de, A: MapAccess<'de>>(&mut self, _: &str, _: &mut A) -> Result<bool, A::Error> {
        Ok(false)
    }
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

/// Writes a variant as a plain object, with its tag as the first field when given.
struct VariantAsStruct<S> {
    tag: Option<&'static str>,
    inner: S,
}

/// The fields of a struct variant, forwarded to a plain object.
pub struct StructFields<S>(S);

impl<S: SerializeStruct> SerializeStructVariant for StructFields<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), S::Error> {
        self.0.serialize_field(key, value)
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), S::Error> {
        self.0.skip_field(key)
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

/// Refuses every value no tagged form can write: anything but an enum variant, and
/// tuple variants.
macro_rules! refuse_plain_values {
    () => {
        refuse_plain_values! {
            serialize_bool(bool) -> Self::Ok; serialize_i8(i8) -> Self::Ok;
            serialize_i16(i16) -> Self::Ok; serialize_i32(i32) -> Self::Ok;
            serialize_i64(i64) -> Self::Ok; serialize_u8(u8) -> Self::Ok;
            serialize_u16(u16) -> Self::Ok; serialize_u32(u32) -> Self::Ok;
            serialize_u64(u64) -> Self::Ok; serialize_f32(f32) -> Self::Ok;
            serialize_f64(f64) -> Self::Ok; serialize_char(char) -> Self::Ok;
            serialize_str(&str) -> Self::Ok; serialize_bytes(&[u8]) -> Self::Ok;
            serialize_none() -> Self::Ok; serialize_unit() -> Self::Ok;
            serialize_unit_struct(&'static str) -> Self::Ok;
            serialize_seq(Option<usize>) -> Self::SerializeSeq;
            serialize_tuple(usize) -> Self::SerializeTuple;
            serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
            serialize_map(Option<usize>) -> Self::SerializeMap;
            serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        }
    };
    ($($method:ident($($arg:ty),*) -> $out:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$out, Self::Error> {
            Err(ser::Error::custom("only an enum variant can be written in a tagged form"))
        })*

        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Self::Ok, Self::Error> {
            Err(ser::Error::custom("only an enum variant can be written in a tagged form"))
        }

        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok, Self::Error> {
            Err(ser::Error::custom("only an enum variant can be written in a tagged form"))
        }

        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, Self::Error> {
            Err(ser::Error::custom("a tuple variant cannot be written in a tagged form"))
        }
    };
}

impl<S: Serializer> Serializer for VariantAsStruct<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Impossible<S::Ok, S::Error>;
    type SerializeTuple = Impossible<S::Ok, S::Error>;
    type SerializeTupleStruct = Impossible<S::Ok, S::Error>;
    type SerializeTupleVariant = Impossible<S::Ok, S::Error>;
    type SerializeMap = Impossible<S::Ok, S::Error>;
    type SerializeStruct = Impossible<S::Ok, S::Error>;
    type SerializeStructVariant = StructFields<S::SerializeStruct>;

    refuse_plain_values!();

    fn serialize_unit_variant(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<S::Ok, S::Error> {
        let mut object = self
            .inner
            .serialize_struct(name, usize::from(self.tag.is_some()))?;
        if let Some(tag) = self.tag {
            object.serialize_field(tag, variant)?;
        }
        object.end()
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        match self.tag {
            None => value.serialize(self.inner),
            Some(_) => Err(ser::Error::custom(
                "a newtype variant cannot be written internally tagged",
            )),
        }
    }

    fn serialize_struct_variant(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        let mut object = self
            .inner
            .serialize_struct(name, len + usize::from(self.tag.is_some()))?;
        if let Some(tag) = self.tag {
            object.serialize_field(tag, variant)?;
        }
        Ok(StructFields(object))
    }
}

/// Catches the name a derive writes a variant with, and nothing else.
struct VariantName;

/// The value given to [`variant_name`] was not an enum variant.
#[derive(Debug)]
pub struct NotAVariant(String);

impl fmt::Display for NotAVariant {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl std::error::Error for NotAVariant {}

impl ser::Error for NotAVariant {
    fn custom<T: fmt::Display>(message: T) -> Self {
        NotAVariant(message.to_string())
    }
}

/// A struct variant's fields, passed over: only its name is kept.
struct SkipFields(&'static str);

impl SerializeStructVariant for SkipFields {
    type Ok = &'static str;
    type Error = NotAVariant;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        _: &'static str,
        _: &T,
    ) -> Result<(), NotAVariant> {
        Ok(())
    }

    fn end(self) -> Result<&'static str, NotAVariant> {
        Ok(self.0)
    }
}

impl Serializer for VariantName {
    type Ok = &'static str;
    type Error = NotAVariant;
    type SerializeSeq = Impossible<&'static str, NotAVariant>;
    type SerializeTuple = Impossible<&'static str, NotAVariant>;
    type SerializeTupleStruct = Impossible<&'static str, NotAVariant>;
    type SerializeTupleVariant = Impossible<&'static str, NotAVariant>;
    type SerializeMap = Impossible<&'static str, NotAVariant>;
    type SerializeStruct = Impossible<&'static str, NotAVariant>;
    type SerializeStructVariant = SkipFields;

    refuse_plain_values!();

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<&'static str, NotAVariant> {
        Ok(variant)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: &T,
    ) -> Result<&'static str, NotAVariant> {
        Ok(variant)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<SkipFields, NotAVariant> {
        Ok(SkipFields(variant))
    }
}

#[cfg(test)]
mod tests {
    use crate::model::AnswerOutcome;
    use crate::projection::{Item, ItemBody};
    use crate::protocol::ask::AskState;
    use crate::protocol::channel::{Channel, EventBody, RunEvent, RunOutcome};
    use serde_json::json;

    #[test]
    fn internally_tagged_variants_are_written_tag_first() {
        let cancelled = AskState::Cancelled {
            reason: "superseded".into(),
        };
        assert_eq!(
            serde_json::to_string(&cancelled).unwrap(),
            r#"{"state":"cancelled","reason":"superseded"}"#
        );
        assert_eq!(
            serde_json::to_string(&AskState::Pending).unwrap(),
            r#"{"state":"pending"}"#
        );
        let outcome = RunOutcome::Interrupted {
            ask_ids: vec!["a".into()],
        };
        let text = serde_json::to_string(&outcome).unwrap();
        assert_eq!(text, r#"{"type":"interrupted","ask_ids":["a"]}"#);
        assert_eq!(serde_json::from_str::<RunOutcome>(&text).unwrap(), outcome);
        assert_eq!(
            serde_json::from_str::<AskState>(r#"{"state":"pending"}"#).unwrap(),
            AskState::Pending
        );
    }

    #[test]
    fn an_item_reads_its_place_fields_before_and_after_the_tag() {
        let text = r#"{"sequence":4,"type":"step","updated":9,"name":"plan","active":true,"ts":7,"channel":"system"}"#;
        let item: Item = serde_json::from_str(text).unwrap();
        assert_eq!(
            item,
            Item {
                sequence: 4,
                updated: 9,
                ts: 7,
                channel: Channel::System,
                body: ItemBody::Step {
                    name: "plan".into(),
                    active: true,
                },
            }
        );
        let written = serde_json::to_string(&item).unwrap();
        assert_eq!(
            written,
            r#"{"sequence":4,"updated":9,"ts":7,"channel":"system","type":"step","name":"plan","active":true}"#
        );
    }

    #[test]
    fn fields_before_their_tag_are_still_read_on_native_builds() {
        // A serde_json::Value keeps keys sorted: "name" and "active" precede "type".
        let sorted = json!({"type": "step", "name": "plan", "active": false, "sequence": 1,
            "updated": 1, "ts": 0, "channel": "system"});
        let item: Item = serde_json::from_value(sorted).unwrap();
        assert_eq!(
            item.body,
            ItemBody::Step {
                name: "plan".into(),
                active: false
            }
        );
        let event = r#"{"tenant_id":"t","thread_id":"h","run_id":"r","sequence":2,"channel":"commentary",
            "payload":{"message_id":"m","delta":"hi"},"kind":"text_delta","ts":5}"#;
        let event: RunEvent = serde_json::from_str(event).unwrap();
        assert_eq!(
            event.body,
            EventBody::TextDelta {
                message_id: "m".into(),
                delta: "hi".into()
            }
        );
    }

    #[test]
    fn every_event_kind_in_the_table_is_a_name_the_derive_reads() {
        use crate::protocol::channel::EVENT_KINDS;
        for kind in EVENT_KINDS {
            let text = format!(r#"{{"kind":"{kind}","payload":{{}}}}"#);
            // A known name reads, or fails on its missing fields, never on the name.
            if let Err(error) = serde_json::from_str::<EventBody>(&text) {
                assert!(
                    !error.to_string().contains("unknown variant"),
                    "{kind}: {error}"
                );
            }
        }
        let delta = EventBody::TextDelta {
            message_id: "m".into(),
            delta: "d".into(),
        };
        assert_eq!(super::variant_name(&delta).unwrap(), delta.kind());
    }

    #[test]
    fn a_missing_or_unknown_tag_is_named_in_the_error() {
        let missing = serde_json::from_str::<AnswerOutcome>(r#"{"state":"x"}"#).unwrap_err();
        assert!(
            missing.to_string().contains("missing field `outcome`"),
            "{missing}"
        );
        let unknown =
            serde_json::from_str::<AnswerOutcome>(r#"{"outcome":"exploded"}"#).unwrap_err();
        assert!(
            unknown.to_string().contains("unknown variant `exploded`"),
            "{unknown}"
        );
        let event = r#"{"tenant_id":"t","thread_id":"h","run_id":"r","sequence":2,"channel":"system","ts":5}"#;
        let error = serde_json::from_str::<RunEvent>(event).unwrap_err();
        assert!(
            error.to_string().contains("missing field `kind`"),
            "{error}"
        );
        let event = r#"{"tenant_id":"t","thread_id":"h","run_id":"r","sequence":2,"channel":"system","kind":"text_delta","payload":{"message_id":"m"},"ts":5}"#;
        let error = serde_json::from_str::<RunEvent>(event).unwrap_err();
        assert!(
            error.to_string().contains("missing field `delta`"),
            "{error}"
        );
    }
}
