package dev.colossal.cli;

/** Entry point of the {@code colossal} command line. */
public final class Main {
    private Main() {}

    /**
     * Runs a subcommand.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        System.out.println("colossal: commands arrive with the foundation issue");
    }
}
