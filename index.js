// n8n loads the nodes and credentials listed in package.json's "n8n" block; this entry point
// only lets `require('n8n-nodes-littlepay')` resolve.
module.exports = {};
