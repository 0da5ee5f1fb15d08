package dev.colossal.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of the {@code colossal} command line. Each subcommand is a class of its own in this
 * package, listed once in the annotation below.
 */
@Command(name = "colossal", mixinStandardHelpOptions = true, version = "colossal 0.1.0",
        description = {"Huge, persistent, shareable data for Java on the FFM API of JDK 25.",
            "Sizes are read as redis.conf reads them: 100m is 100,000,000 bytes, 100mb and 100MiB are 104,857,600"
                    + " (k, m, g, t, p count in thousands; kb, KiB and the like in 1024s)."},
        subcommands = {
            CommandLine.HelpCommand.class,
            MixCommand.class,
            SparseCommand.class,
            PingPongCommand.class,
            ServeCommand.class,
            SwapCommand.class,
            InspectCommand.class,
            VerifyCommand.class,
            CompactCommand.class,
            CopyCommand.class,
            ImportRdbCommand.class,
            RepairCommand.class,
            MapSoakCommand.class,
        })
public final class Main implements Runnable {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    /** Creates the root command; picocli calls this. */
    public Main() {}

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /**
     * Runs a subcommand and exits with its status.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        System.exit(new CommandLine(new Main()).execute(args));
    }
}
