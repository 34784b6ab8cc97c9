// Run with node by suffix.
const name = process.argv[2] || "world";
console.log(JSON.stringify({ lang: "node", greeting: `Hello, ${name}!`, argv: process.argv.slice(2) }));
