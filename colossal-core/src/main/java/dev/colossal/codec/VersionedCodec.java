package dev.colossal.codec;

/**
 * Prefixes each value with its codec's 8-byte schema fingerprint, so bytes written by a different
 * version of a record are refused with a message instead of being misread.
 *
 * @param codec       the guarded codec
 * @param fingerprint its schema's fingerprint
 */
record VersionedCodec<T>(WireCodec<T> codec, long fingerprint) implements WireCodec<T> {

    static <T> VersionedCodec<T> of(WireCodec<T> codec) {
        return new VersionedCodec<>(codec, WireFormat.fingerprint(codec.schema()));
    }

    @Override
    public String typeName() {
        return codec.typeName();
    }

    @Override
    public long size(T v) {
        return 8 + codec.size(v);
    }

    @Override
    public void write(T v, Output out) {
        out.writeLong(fingerprint);
        codec.write(v, out);
    }

    @Override
    public T read(Input in) {
        long written = in.readLong();
        if (written != fingerprint) {
            in.skip(-8);
            throw in.error(typeName(), "schema fingerprint=" + Long.toHexString(written)
                    + " but this codec reads fingerprint=" + Long.toHexString(fingerprint)
                    + ": the bytes were written by another version of the type (schema now: " + codec.schema()
                    + "); decode them with that version, or with Codecs.evolving for added and removed fields");
        }
        return codec.read(in);
    }

    @Override
    public String schema() {
        return codec.schema();
    }
}
