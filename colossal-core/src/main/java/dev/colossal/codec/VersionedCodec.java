package dev.colossal.codec;

import java.lang.foreign.MemorySegment;

/**
 * Prefixes each value with its codec's 8-byte schema fingerprint, so bytes written by a different
 * version of a record are refused with a message instead of being misread.
 */
final class VersionedCodec<T> extends AbstractCodec<T> {

    private final AbstractCodec<T> codec;
    private final long fingerprint;

    VersionedCodec(AbstractCodec<T> codec) {
        super(codec.typeName());
        this.codec = codec;
        this.fingerprint = WireFormat.fingerprint(codec.schema());
    }

    @Override
    long size(T v) {
        return 8 + codec.size(v);
    }

    @Override
    long write(T v, MemorySegment s, long off) {
        return codec.write(v, s, WireFormat.putLong(s, off, fingerprint));
    }

    @Override
    T read(Input in) {
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
    String schema() {
        return codec.schema();
    }
}
