package dev.colossal.ipc;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

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
    static final int VERSION = 1;

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
}
