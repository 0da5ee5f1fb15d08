package dev.colossal.swap;

import dev.colossal.memory.internal.ReopeningChannel;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The catalog of a persistent swap file, {@code <swap file>.catalog}: where each object's block
 * lies, written when the space is closed and read when it is reopened.
 *
 * <pre>
 *  0        8        16       24       32       40     44     48
 *  +--------+--------+--------+--------+--------+------+------+
 *  | magic  | count  |fileEnd | nextId |  align | crc  | zero |   header; crc32c of the entries
 *  +--------+--------+--------+--------+--------+------+------+
 *  48 + 40 * i
 *  +--------+--------+--------+------+------+-------------+
 *  |   id   | offset | length | kind | zero | fingerprint |      entry i, by increasing offset
 *  +--------+--------+--------+------+------+-------------+
 * </pre>
 *
 * <p>{@code length} is the payload's size in bytes; {@code kind} says what to rebuild on swap-in
 * (an array type, or a codec-encoded object); {@code fingerprint} is an object's codec's
 * {@linkplain dev.colossal.codec.Codecs#storedFingerprint stored fingerprint}, which the codec
 * given after reopening must match (0: no check, as for arrays). Catalogs of format version 1,
 * whose 32-byte entries end before the fingerprint, are read with none. The catalog is replaced atomically (written beside,
 * forced, renamed, the directory forced) when a persistent space is closed, and left in place while
 * it is open: the blocks it lists are not overwritten before the next one replaces it, so a session
 * that dies falls back on the catalog of the last clean close (see {@link SwapFile}).
 */
final class CatalogLayout {

    /** "CLCATL" then the format version 2. */
    static final long MAGIC = 0x0002_4c54_4143_4c43L;
    /** Version 1's: entries without a fingerprint. */
    private static final long MAGIC_V1 = 0x0001_4c54_4143_4c43L;
    private static final long ENTRY_V1_SIZE = 32;

    record Entry(long id, long offset, long length, int kind, long fingerprint) {}

    record Catalog(long fileEnd, long nextId, long alignment, List<Entry> entries) {}

    static final StructLayout HEADER = MemoryLayout.structLayout(
            ValueLayout.JAVA_LONG.withName("magic"),
            ValueLayout.JAVA_LONG.withName("count"),
            ValueLayout.JAVA_LONG.withName("fileEnd"),
            ValueLayout.JAVA_LONG.withName("nextId"),
            ValueLayout.JAVA_LONG.withName("alignment"),
            ValueLayout.JAVA_INT.withName("crc32c"),
            ValueLayout.JAVA_INT.withName("zero"));
    static final StructLayout ENTRY = MemoryLayout.structLayout(
            ValueLayout.JAVA_LONG.withName("id"),
            ValueLayout.JAVA_LONG.withName("offset"),
            ValueLayout.JAVA_LONG.withName("length"),
            ValueLayout.JAVA_INT.withName("kind"),
            ValueLayout.JAVA_INT.withName("zero"),
            ValueLayout.JAVA_LONG.withName("fingerprint"));

    private static final VarHandle H_MAGIC = handle(HEADER, "magic");
    private static final VarHandle H_COUNT = handle(HEADER, "count");
    private static final VarHandle H_FILE_END = handle(HEADER, "fileEnd");
    private static final VarHandle H_NEXT_ID = handle(HEADER, "nextId");
    private static final VarHandle H_ALIGNMENT = handle(HEADER, "alignment");
    private static final VarHandle H_CRC = handle(HEADER, "crc32c");
    // Offsets rather than handles: a handle of ENTRY checks for 40 bytes, and version 1's have 32.
    private static final long E_ID = offset(ENTRY, "id");
    private static final long E_OFFSET = offset(ENTRY, "offset");
    private static final long E_LENGTH = offset(ENTRY, "length");
    private static final long E_KIND = offset(ENTRY, "kind");
    private static final long E_FINGERPRINT = offset(ENTRY, "fingerprint");

    private CatalogLayout() {}

    private static VarHandle handle(StructLayout layout, String name) {
        return layout.varHandle(PathElement.groupElement(name)).withInvokeExactBehavior();
    }

    private static long offset(StructLayout layout, String name) {
        return layout.byteOffset(PathElement.groupElement(name));
    }

    static Path pathOf(Path swapFile) {
        return swapFile.resolveSibling(swapFile.getFileName() + ".catalog");
    }

    /** Writes the catalog beside its final name, forces it, then renames it into place. */
    static void write(Path swapFile, Catalog catalog) throws IOException {
        Path target = pathOf(swapFile);
        Path temp = target.resolveSibling(target.getFileName() + ".tmp");
        List<Entry> entries = catalog.entries();
        try (Arena arena = Arena.ofConfined();
             ReopeningChannel ch = ReopeningChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                     StandardOpenOption.TRUNCATE_EXISTING)) {
            MemorySegment bytes = arena.allocate(HEADER.byteSize() + ENTRY.byteSize() * entries.size(), 8);
            MemorySegment body = bytes.asSlice(HEADER.byteSize());
            for (int i = 0; i < entries.size(); i++) {
                Entry e = entries.get(i);
                long at = ENTRY.byteSize() * i;
                body.set(ValueLayout.JAVA_LONG, at + E_ID, e.id());
                body.set(ValueLayout.JAVA_LONG, at + E_OFFSET, e.offset());
                body.set(ValueLayout.JAVA_LONG, at + E_LENGTH, e.length());
                body.set(ValueLayout.JAVA_INT, at + E_KIND, e.kind());
                body.set(ValueLayout.JAVA_LONG, at + E_FINGERPRINT, e.fingerprint());
            }
            H_MAGIC.set(bytes, 0L, MAGIC);
            H_COUNT.set(bytes, 0L, (long) entries.size());
            H_FILE_END.set(bytes, 0L, catalog.fileEnd());
            H_NEXT_ID.set(bytes, 0L, catalog.nextId());
            H_ALIGNMENT.set(bytes, 0L, catalog.alignment());
            H_CRC.set(bytes, 0L, crcOf(body));
            // whole, from a fresh buffer, so that a write an interrupt cut short runs again as it was
            ch.call(c -> {
                ByteBuffer b = bytes.asByteBuffer();
                while (b.hasRemaining()) {
                    c.write(b, b.position());
                }
                c.force(true);
                return null;
            });
        }
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceDirectory(target.toAbsolutePath().getParent());
    }

    /**
     * Makes the rename durable before the caller frees what the old catalog listed. Best effort: where a
     * directory cannot be opened for that, the rename stays as durable as the file system makes it.
     */
    private static void forceDirectory(Path dir) {
        try (ReopeningChannel ch = ReopeningChannel.open(dir, StandardOpenOption.READ)) {
            ch.call(c -> {
                c.force(true);
                return null;
            });
        } catch (IOException ignored) {
            // not possible on every platform; the catalog is in place either way
        }
    }

    /**
     * Reads a catalog.
     *
     * @throws SwapCorruptedException if it is short, of another format, or its checksum does not match
     */
    static Catalog read(Path swapFile) throws IOException {
        Path path = pathOf(swapFile);
        try (Arena arena = Arena.ofConfined(); FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < HEADER.byteSize()) {
                throw damaged(path, 0, "size=" + size + " is shorter than the catalog header");
            }
            MemorySegment bytes = arena.allocate(size, 8);
            var b = bytes.asByteBuffer();
            while (b.hasRemaining() && ch.read(b) >= 0) {
                // read it all
            }
            long magic = (long) H_MAGIC.get(bytes, 0L);
            if (magic != MAGIC && magic != MAGIC_V1) {
                throw damaged(path, 0, "magic=0x" + Long.toHexString(magic) + " is not a catalog's");
            }
            long entrySize = magic == MAGIC ? ENTRY.byteSize() : ENTRY_V1_SIZE;
            long count = (long) H_COUNT.get(bytes, 0L);
            if (count < 0 || count > size / entrySize || HEADER.byteSize() + count * entrySize != size) {
                throw damaged(path, 0, "count=" + count + " does not match the catalog's size=" + size);
            }
            MemorySegment body = bytes.asSlice(HEADER.byteSize());
            int crc = (int) H_CRC.get(bytes, 0L);
            if (crc != crcOf(body)) {
                throw damaged(path, HEADER.byteSize(), "entries crc32c does not match the header's");
            }
            List<Entry> entries = new ArrayList<>((int) count);
            for (long i = 0; i < count; i++) {
                long at = entrySize * i;
                entries.add(new Entry(body.get(ValueLayout.JAVA_LONG, at + E_ID),
                        body.get(ValueLayout.JAVA_LONG, at + E_OFFSET), body.get(ValueLayout.JAVA_LONG, at + E_LENGTH),
                        body.get(ValueLayout.JAVA_INT, at + E_KIND),
                        magic == MAGIC ? body.get(ValueLayout.JAVA_LONG, at + E_FINGERPRINT) : 0));
            }
            return new Catalog((long) H_FILE_END.get(bytes, 0L), (long) H_NEXT_ID.get(bytes, 0L),
                    (long) H_ALIGNMENT.get(bytes, 0L), entries);
        }
    }

    private static int crcOf(MemorySegment body) {
        CRC32C crc = new CRC32C();
        crc.update(body.asByteBuffer());
        return (int) crc.getValue();
    }

    private static SwapCorruptedException damaged(Path path, long offset, String what) {
        return new SwapCorruptedException(-1, path, offset, "catalog " + what);
    }
}
