package cli

import "fmt"

func init() {
	addCommand(&command{
		name:    "help",
		summary: "show this help, or a command's: storecheck help COMMAND",
		run:     help,
	})
}

func help(c *app, args []string) int {
	switch len(args) {
	case 0:
		c.printUsage(c.stdout)
		return exitOK
	case 1:
		if cmd, ok := commands[args[0]]; ok && cmd.name != "help" {
			return cmd.run(c, []string{"--help"})
		}
		if args[0] == "help" {
			c.printUsage(c.stdout)
			return exitOK
		}
		fmt.Fprintf(c.stderr, "storecheck help: unknown command %q\n\n", args[0])
	default:
		fmt.Fprintf(c.stderr, "storecheck help: one command at a time\n\n")
	}
	c.printUsage(c.stderr)
	return exitUsage
}
