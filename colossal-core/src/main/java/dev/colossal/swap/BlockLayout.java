package dev.colossal.swap;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;

/**
 * The layout of one block of a swap file: the guards of seed 003 (length and unique id before
 * the payload, the id again after it) plus a magic number and a CRC32C of the payload.
 *
 * <pre>
 *  block offset
 *  0        8        16       24     28     32                 headerSpan
 *  +--------+--------+--------+------+------+------ zero ------+
 *  | magic  | length |   id   |crc32c| zero |     padding      |   header, padded to the alignment
 *  +--------+--------+--------+------+------+------------------+
 *  headerSpan                               headerSpan + length
 *  +----------------------------------------+--------+-- zero --+
 *  |            payload (length bytes)      |   id   | padding  |  padded to the alignment
 *  +----------------------------------------+--------+----------+
 * </pre>
 *
 * <p>Numbers are in the platform's byte order, like the payload (arrays are copied byte for byte).
 * The header is padded to one alignment unit so that, with direct I/O, the payload starts on an
 * aligned file offset and pool chunks go to and from the disk without a copy. The header is
 * written last, after the payload and the trailing id: a block whose writing was interrupted
 * fails its checks instead of passing as valid.
 */
final class BlockLayout {

    /** "CLSWAP" then the format version 1, read as a long in the platform's order. */
    static final long MAGIC = 0x0001_5041_5753_4c43L;

    static final StructLayout HEADER = MemoryLayout.structLayout(
            ValueLayout.JAVA_LONG.withName("magic"),
            ValueLayout.JAVA_LONG.withName("length"),
            ValueLayout.JAVA_LONG.withName("id"),
            ValueLayout.JAVA_INT.withName("crc32c"),
            ValueLayout.JAVA_INT.withName("zero"));
    static final long HEADER_SIZE = HEADER.byteSize();
    static final long MAGIC_OFFSET = offsetOf("magic");
    static final long LENGTH_OFFSET = offsetOf("length");
    static final long ID_OFFSET = offsetOf("id");
    static final long CRC_OFFSET = offsetOf("crc32c");
    static final long ZERO_OFFSET = offsetOf("zero");
    static final long TRAILER_SIZE = ValueLayout.JAVA_LONG.byteSize();
    /** The smallest alignment: the header fits in one unit. */
    static final long MIN_ALIGNMENT = 64;

    private static final VarHandle MAGIC_HANDLE = field("magic");
    private static final VarHandle LENGTH_HANDLE = field("length");
    private static final VarHandle ID_HANDLE = field("id");
    private static final VarHandle CRC_HANDLE = field("crc32c");
    private static final VarHandle ZERO_HANDLE = field("zero");

    private BlockLayout() {}

    private static long offsetOf(String name) {
        return HEADER.byteOffset(PathElement.groupElement(name));
    }

    private static VarHandle field(String name) {
        return HEADER.varHandle(PathElement.groupElement(name)).withInvokeExactBehavior();
    }

    /** @return the header's size on disk: one alignment unit */
    static long headerSpan(long alignment) {
        return alignment;
    }

    /** @return the whole block's size on disk for a payload of {@code length} bytes */
    static long blockSize(long length, long alignment) {
        return headerSpan(alignment) + roundUp(length + TRAILER_SIZE, alignment);
    }

    static long roundUp(long value, long alignment) {
        return (value + alignment - 1) & -alignment;
    }

    static void checkAlignment(long alignment) {
        if (alignment < MIN_ALIGNMENT || Long.bitCount(alignment) != 1) {
            throw new IllegalArgumentException("alignment=" + alignment + " must be a power of two >= "
                    + MIN_ALIGNMENT + " (4096 suits direct I/O on most file systems)");
        }
    }

    /** Fills a header; the padding after it must already be zero. */
    static void writeHeader(MemorySegment header, long length, long id, int crc) {
        MAGIC_HANDLE.set(header, 0L, MAGIC);
        LENGTH_HANDLE.set(header, 0L, length);
        ID_HANDLE.set(header, 0L, id);
        CRC_HANDLE.set(header, 0L, crc);
        ZERO_HANDLE.set(header, 0L, 0);
    }

    /** @return the CRC32C the header records */
    static int crc(MemorySegment header) {
        return (int) CRC_HANDLE.get(header, 0L);
    }

    /**
     * Checks a header against what the catalog expects of the block.
     *
     * @throws SwapCorruptedException naming the object, the file, the offset and the field that differs
     */
    static void checkHeader(MemorySegment header, long id, long length, Path file, long offset) {
        long magic = (long) MAGIC_HANDLE.get(header, 0L);
        if (magic != MAGIC) {
            throw new SwapCorruptedException(id, file, offset, "magic=0x" + Long.toHexString(magic)
                    + " is not a swap block's (expected 0x" + Long.toHexString(MAGIC) + ")");
        }
        long storedLength = (long) LENGTH_HANDLE.get(header, 0L);
        if (storedLength != length) {
            throw new SwapCorruptedException(id, file, offset, "length=" + storedLength + " (expected " + length + ")");
        }
        long storedId = (long) ID_HANDLE.get(header, 0L);
        if (storedId != id) {
            throw new SwapCorruptedException(id, file, offset, "header id=" + storedId + " (expected " + id + ")");
        }
        int zero = (int) ZERO_HANDLE.get(header, 0L);
        if (zero != 0) {
            throw new SwapCorruptedException(id, file, offset, "reserved header word=" + zero + " (expected 0)");
        }
    }

    /** Checks the id after the payload. */
    static void checkTrailer(long storedId, long id, Path file, long offset) {
        if (storedId != id) {
            throw new SwapCorruptedException(id, file, offset, "trailing id=" + storedId + " (expected " + id + ")");
        }
    }
}
