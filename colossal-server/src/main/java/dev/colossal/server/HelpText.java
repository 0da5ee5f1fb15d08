package dev.colossal.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A command's HELP lines, kept in a resource of the server's jar beside this class, one reply line
 * per text line (leading spaces kept): long help texts stay out of the classes that hold the logic.
 */
final class HelpText {

    private HelpText() {}

    /** @return the lines of {@code resource}, as {@code CMD HELP} answers them */
    static List<String> load(String resource) {
        try (InputStream in = HelpText.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the server's jar");
            }
            return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(resource, e);
        }
    }
}
