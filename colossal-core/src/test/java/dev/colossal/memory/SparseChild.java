package dev.colossal.memory;

import java.io.UncheckedIOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

/**
 * A child JVM for {@link SparseFilesTest}: {@code DIR hold} maps kept sparse files, writes, says
 * "mapped" and waits to be killed; {@code DIR try} says whether it could map them ("mapped" or
 * "refused") and exits.
 */
public final class SparseChild {

    private SparseChild() {}

    public static void main(String[] args) throws InterruptedException {
        SparseFiles span;
        try {
            span = SparseFiles.map(Path.of(args[0]), 8192, 4096, true);
        } catch (UncheckedIOException e) {
            System.out.println("refused");
            return;
        }
        span.segments().get(1).set(ValueLayout.JAVA_INT, 100, 4321);
        System.out.println("mapped");
        System.out.flush();
        if (args[1].equals("hold")) {
            Thread.sleep(120_000);
        }
        span.close();
    }
}
