package dev.colossal.swap;

import dev.colossal.codec.Codec;
import dev.colossal.codec.Codecs;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Any value a {@link Codec} can encode, held by a {@link SwapSpace}: {@link #get()} returns it,
 * decoding it from the swap file first if it was swapped out. The value should be immutable (a
 * record, say): a swapped-out copy is what {@code get()} returns next.
 *
 * @param <T> the value's type
 */
public final class SwappableObject<T> extends Swappable {

    private volatile Codec<T> codec;
    /** Its codec's {@link Codecs#storedFingerprint}, kept in the catalog: 0 when there is none to check. */
    final long fingerprint;

    SwappableObject(SwapSpace space, long id, Codec<T> codec, long fingerprint, long byteSize, T value, long offset) {
        super(space, id, Kind.OBJECT, byteSize, value, offset);
        this.codec = codec;
        this.fingerprint = fingerprint;
    }

    /**
     * @return the value, read back from the swap file (on this thread) if it was swapped out
     * @throws IllegalStateException  if the handle or its space is closed
     * @throws SwapCorruptedException if the swapped copy is damaged
     * @throws SwapException          if the swap file cannot be read or the budget cannot make room
     */
    @SuppressWarnings("unchecked")
    public T get() {
        return (T) space.access(this, SwapSpace.Pin.NONE);
    }

    @SuppressWarnings("unchecked")
    <U> SwappableObject<U> bind(Codec<U> c) {
        Objects.requireNonNull(c, "codec");
        Codec<T> own = codec;
        if (own == null) {
            long given = Codecs.storedFingerprint(c);
            if (fingerprint != 0 && given != fingerprint) {
                // Decoded by another schema, its bytes would come back as some other value, or as garbage.
                throw new IllegalArgumentException("object id=" + id + " was stored with a codec of fingerprint 0x"
                        + Long.toHexString(fingerprint) + ", not " + Codecs.schema(c) + " (fingerprint 0x"
                        + Long.toHexString(given) + "); pass the codec it was stored with");
            }
            codec = (Codec<T>) c;
        } else if (c != own && !Codecs.schema(c).equals(Codecs.schema(own))) {
            // Handed out as it is, the handle's get() would return another type than the caller's.
            throw new IllegalArgumentException("object id=" + id + " was stored with a codec of "
                    + Codecs.schema(own) + ", not " + Codecs.schema(c) + "; pass the codec it was stored with");
        }
        return (SwappableObject<U>) this;
    }

    private Codec<T> codec() {
        Codec<T> c = codec;
        if (c == null) {
            throw new IllegalStateException("object id=" + id + " was reopened from a catalog and has no codec yet;"
                    + " get its handle with SwapSpace.object(id, codec)");
        }
        return c;
    }

    @Override
    boolean pinned(Object resident) {
        return false;
    }

    @Override
    @SuppressWarnings("unchecked")
    MemorySegment[] payload(Object resident, Arena arena) {
        // Measured again: a value changed since it was stored may encode to another size (see SwapSpace.write).
        Codec<T> c = codec();
        MemorySegment bytes = arena.allocate(c.encodedSize((T) resident), 8);
        c.encode((T) resident, bytes, 0);
        return new MemorySegment[] {bytes};
    }

    @Override
    Object load(SwapFile file, long blockOffset) throws IOException {
        Codec<T> c = codec();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment bytes = arena.allocate(byteSize, file.alignment());
            file.read(blockOffset, id, new MemorySegment[] {bytes}, byteSize);
            return c.decode(bytes);
        }
    }

    @Override
    void drop(Object resident) {
        // The heap value goes with its last reference; nothing to release.
    }
}
