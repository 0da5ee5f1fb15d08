package dev.colossal.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code colossal help}: whole sentences that fit, and the launcher's own commands listed. */
class HelpTest {

    /** Picocli lists commands with 12 columns of names before the description, in 80 columns. */
    private static final int LIST_WIDTH = 80 - 12;

    private static final Path LAUNCHER = Path.of("..", "colossal");

    @Test
    void shouldDescribeEveryCommandInWholeSentencesTheFirstFittingTheList() {
        CommandLine.Model.CommandSpec root = new CommandLine(new Main()).getCommandSpec();
        root.subcommands().forEach((name, cmd) -> {
            if (name.equals("help")) {
                return; // picocli's own, listed by its header
            }
            String[] description = cmd.getCommandSpec().usageMessage().description();
            assertTrue(description.length > 0, name);
            assertTrue(description[0].length() <= LIST_WIDTH, name + ": '" + description[0] + "' wraps in the list");
            for (String paragraph : description) {
                // Each element is printed as a paragraph of its own: a sentence cut in two breaks the line.
                assertTrue(paragraph.endsWith("."), name + ": '" + paragraph + "' is not a whole sentence");
            }
        });
    }

    @Test
    void shouldPrintOneLinePerCommandInTheList() {
        String out = Cli.run("help").out();
        String list = out.substring(out.indexOf("Commands:"));
        list.lines().skip(1).forEach(line ->
                assertTrue(line.matches("  [a-z-]+ +[A-Z].*\\."), "a continued or cut description: '" + line + "'"));
    }

    @Test
    void shouldListTheLaunchersOwnCommands() throws Exception {
        Process p = new ProcessBuilder("bash", LAUNCHER.toString(), "help", "bench").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), UTF_8);
        assertEquals(0, p.waitFor(), out);
        for (String command : new String[] {"test", "bench", "build"}) {
            assertTrue(out.contains("\n  " + command + "  "), command + " missing from: " + out);
        }
        String script = Files.readString(LAUNCHER);
        assertTrue(script.contains("launcher_usage\n      exit 0"), "./colossal help adds the launcher's commands");
    }

    @Test
    void shouldBuildWithoutColourCodes() throws Exception {
        List<String> script = Files.readAllLines(LAUNCHER);
        String opts = script.stream().filter(l -> l.startsWith("export MAVEN_OPTS=")).findFirst().orElseThrow();
        String mvnRun = script.stream().filter(l -> l.startsWith("mvn_run()")).findFirst().orElseThrow();
        // Debian's Maven 3.8 writes "[0m[0m" even with -B unless its JVM starts with jansi.noreset.
        assertTrue(opts.contains("-Djansi.noreset=true"), opts);
        assertTrue(mvnRun.contains(" -B ") && mvnRun.contains("-Dstyle.color=never"), mvnRun);
    }
}
