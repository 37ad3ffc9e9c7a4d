//! Writing the tagged forms through the externally tagged derive, and a variant's written name.

use std::fmt;

use serde::ser::{
    self, Impossible, Serialize, SerializeStruct, SerializeStructVariant, Serializer,
};

use super::Variants;

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
