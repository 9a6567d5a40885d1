// Copies what tsc does not emit (icons, codex JSON) next to the compiled nodes and credentials.
const { src, dest } = require('gulp');

function copyStaticFiles() {
	return src(['nodes/**/*.{svg,png,json}', 'credentials/**/*.{svg,png}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

exports.build = copyStaticFiles;
exports.default = copyStaticFiles;
