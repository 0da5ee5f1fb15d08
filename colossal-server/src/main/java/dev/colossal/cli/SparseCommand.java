package dev.colossal.cli;

import dev.colossal.array.DoubleArray;
import dev.colossal.memory.SparseFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code colossal sparse}: a colossal array over several sparse files, first and last element touched. */
@Command(name = "sparse", mixinStandardHelpOptions = true,
        description = {"Time an array larger than one file, over several sparse files.",
            "Creates a DoubleArray larger than one file may be (ext4 caps a file at 16 TiB) over several sparse"
                    + " files, writes and reads its first and last elements, and prints how long each step took."})
final class SparseCommand implements Callable<Integer> {

    @Option(names = "--size", converter = ByteSize.class,
            description = "logical size of the array (default: 64TiB)")
    long size = 64L << 40;

    @Option(names = "--file-size", converter = ByteSize.class,
            description = "largest file, a power of two (default: 8TiB)")
    long fileSize = SparseFiles.DEFAULT_FILE_BYTES;

    @Option(names = "--dir", description = "where the files go (default: a new temporary directory)")
    Path dir;

    @Override
    public Integer call() {
        if (Long.bitCount(fileSize) != 1 || fileSize < Double.BYTES) {
            return Failures.report("sparse", "--file-size=" + fileSize + " must be a power of two of at least 8"
                    + " (one double), e.g. 8TiB");
        }
        if (size < Double.BYTES) {
            return Failures.report("sparse", "--size=" + size + " holds no double (8 bytes each); give at least 8,"
                    + " e.g. 64TiB");
        }
        Path directory;
        try {
            directory = dir != null ? dir : Files.createTempDirectory("colossal-sparse-");
        } catch (IOException e) {
            return Failures.report("sparse", "cannot create a temporary directory: " + IoMessages.reason(e)
                    + "; name one with --dir DIR");
        }
        try {
            return run(directory);
        } finally {
            if (dir == null) {
                try {
                    Files.deleteIfExists(directory);
                } catch (IOException ignored) {
                    // An empty temporary directory left behind is harmless.
                }
            }
        }
    }

    /** Whether the JDK's "Map failed" came from the OS refusing the address space (ENOMEM). */
    private static boolean outOfAddressSpace(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof OutOfMemoryError) {
                return true;
            }
        }
        return false;
    }

    private int run(Path directory) {
        long length = size / Double.BYTES;
        long t0 = System.nanoTime();
        DoubleArray created;
        try {
            created = DoubleArray.sparse(directory, length, fileSize);
        } catch (UncheckedIOException e) {
            // The library's message names the directory or file and what stopped it.
            return Failures.report("sparse", "--size " + ByteSize.format(size) + ": " + IoMessages.message(e)
                    + (outOfAddressSpace(e) ? "; or give a smaller --size" : ""));
        }
        try (DoubleArray array = created) {
            long t1 = System.nanoTime();
            array.set(0, Math.PI);
            array.set(length - 1, Math.E);
            boolean ok = array.get(0) == Math.PI && array.get(length - 1) == Math.E;
            long t2 = System.nanoTime();
            System.out.printf(Locale.ROOT, "array: %,d doubles (%s) over %d sparse file(s) of up to %s in %s%n",
                    length, ByteSize.format(size), array.chunkCount(), ByteSize.format(fileSize), directory);
            System.out.printf(Locale.ROOT, "create + map: %.1f ms; touch first and last: %.3f ms; total %.1f ms%n",
                    (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t2 - t0) / 1e6);
            System.out.println("first=" + array.get(0) + " last=" + array.get(length - 1) + (ok ? " ok" : " MISMATCH"));
            return ok ? 0 : 1;
        }
    }
}
