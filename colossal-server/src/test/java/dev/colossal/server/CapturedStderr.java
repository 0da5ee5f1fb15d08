package dev.colossal.server;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the server logs on stderr during each test, for tests of what it says
 * ({@code @RegisterExtension}); passed on to the real stderr after the test, so a failure's log
 * is still seen.
 */
final class CapturedStderr implements BeforeEachCallback, AfterEachCallback {

    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private PrintStream realErr;

    @Override
    public void beforeEach(ExtensionContext context) {
        realErr = System.err;
        System.setErr(new PrintStream(stderr, true, StandardCharsets.UTF_8));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        System.setErr(realErr);
        realErr.print(text());
    }

    /** @return what was written to stderr so far in this test */
    String text() {
        return stderr.toString(StandardCharsets.UTF_8);
    }
}
