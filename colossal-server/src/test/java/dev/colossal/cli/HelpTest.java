package dev.colossal.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code colossal help}: whole sentences that fit. */
class HelpTest {

    /** Picocli lists commands with 12 columns of names before the description, in 80 columns. */
    private static final int LIST_WIDTH = 80 - 12;

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
}
