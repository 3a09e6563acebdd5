// Tailwind 4 runs as a PostCSS plugin in Next's CSS pipeline.
const config = { plugins: { "@tailwindcss/postcss": {} } };
export default config;
