package dev.colossal.ipc;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

/**
 * The first 128 bytes of every shared region file. All fields are native-endian (little-endian on
 * x86-64 and AArch64).
 *
 * <pre>
 *   0                   8         12        16                  24                       128
 *   +-------------------+---------+---------+-------------------+-------- ... -----------+
 *   | magic "CLSLREGN"  | version | kind    | file size (bytes) | reserved (zero)        |
 *   | long, written last| int     | int     | long              |                        |
 *   +-------------------+---------+---------+-------------------+-------- ... -----------+
 *   128: payload (the kind's own layout), 128-byte aligned
 * </pre>
 *
 * The creator writes every field, then the magic with release; an opener that sees the magic with
 * acquire sees a complete header. A file whose magic stays zero was left by a creator that died
 * before finishing.
 */
final class RegionHeader {

    /** "CLSLREGN" read as a little-endian long. */
    static final long MAGIC = 0x4E4745524C534C43L;
    static final int VERSION = 2;

    static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ValueLayout.JAVA_LONG.withName("magic"),
            ValueLayout.JAVA_INT.withName("version"),
            ValueLayout.JAVA_INT.withName("kind"),
            ValueLayout.JAVA_LONG.withName("size"),
            MemoryLayout.paddingLayout(104));

    static final long MAGIC_OFFSET = LAYOUT.byteOffset(PathElement.groupElement("magic"));
    static final long VERSION_OFFSET = LAYOUT.byteOffset(PathElement.groupElement("version"));
    static final long KIND_OFFSET = LAYOUT.byteOffset(PathElement.groupElement("kind"));
    static final long SIZE_OFFSET = LAYOUT.byteOffset(PathElement.groupElement("size"));
    /** Where the payload starts: a multiple of 128 so payload counters can be padded to lines. */
    static final long LENGTH = LAYOUT.byteSize();

    private RegionHeader() {}

    /** Writes a new region's header, the magic last so that openers see all of it or none. */
    static void write(MemorySegment file, RegionKind kind, long size) {
        SharedRegion.INT.set(file, VERSION_OFFSET, VERSION);
        SharedRegion.INT.set(file, KIND_OFFSET, kind.id());
        SharedRegion.LONG.set(file, SIZE_OFFSET, size);
        SharedRegion.LONG.setRelease(file, MAGIC_OFFSET, MAGIC);
    }

    static void validate(Path path, MemorySegment file, RegionKind kind) {
        long magic = (long) SharedRegion.LONG.getAcquire(file, MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new IpcException("file " + path + " is not a Colossal region (magic=0x"
                    + Long.toHexString(magic) + "); pick another path");
        }
        int version = (int) SharedRegion.INT.get(file, VERSION_OFFSET);
        if (version != VERSION) {
            throw new IpcException("region " + path + " has format version=" + version + " but this library reads version="
                    + VERSION + "; open it with a matching Colossal, or delete it");
        }
        int kindId = (int) SharedRegion.INT.get(file, KIND_OFFSET);
        if (kindId != kind.id()) {
            RegionKind found = RegionKind.ofId(kindId);
            throw new IpcException("region " + path + " holds kind=" + (found == null ? "unknown(" + kindId + ")" : found)
                    + ", not kind=" + kind + "; use another path for the " + kind);
        }
        long size = (long) SharedRegion.LONG.get(file, SIZE_OFFSET);
        if (size != file.byteSize()) {
            throw new IpcException("region " + path + " records size=" + size + " but the file is "
                    + file.byteSize() + " bytes: it was truncated or extended; delete it");
        }
    }
}
