"use strict";(self.rspackChunktwnb_labextension=self.rspackChunktwnb_labextension||[]).push([[700],{646(t,n,o){var r=o(601),e=o.n(r),a=o(314),i=(o.n(a))()(e());i.push([t.id,`/* twnb Round renderer and Round history. Every rule is scoped under .twnb-round or
   .twnb-round-history and takes its colours from JupyterLab's theme variables, so light and dark
   themes both read well and nothing outside these widgets changes. */

/*
 * twnb's state colours, for text: >= 4.5:1 on JupyterLab's backgrounds in its light and dark themes
 * (JupyterLab's own --jp-success-color1 is 4.1:1 on white, and a fixed red 3.5:1 on the dark theme's
 * grey). The live widget's HTML (twnb/notebook/theme_colours.py) uses them too, with the light
 * values as fallbacks where this extension is not loaded.
 */
:root {
  --twnb-red: #cf222e;
  --twnb-green: #1a7f37;
  --twnb-amber: #9a6700;
  --twnb-blue: #0969da;
}

body[data-jp-theme-light='false'] {
  --twnb-red: #ff7b72;
  --twnb-green: #3fb950;
  --twnb-amber: #d29922;
  --twnb-blue: #58a6ff;
}

/* Links: as JupyterLab draws a Markdown cell's (its base CSS draws a bare <a> as plain text). */
.twnb-round a:link,
.twnb-round a:visited {
  text-decoration: none;
  color: var(--jp-content-link-color);
}

.twnb-round a:hover {
  text-decoration: underline;
  color: var(--jp-content-link-hover-color, var(--jp-content-link-color));
}

.twnb-round {
  font-family: var(--jp-ui-font-family);
  font-size: var(--jp-content-font-size1);
  color: var(--jp-content-font-color1);
  background: var(--jp-layout-color0);
  border: var(--jp-border-width) solid var(--jp-border-color2);
  border-radius: 4px;
  padding: 8px 12px;
  overflow: auto;
}

.twnb-round .twnb-header {
  display: flex;
  align-items: baseline;
  gap: 10px;
  flex-wrap: wrap;
}

.twnb-round .twnb-title {
  font-weight: 600;
  font-size: var(--jp-content-font-size2);
}

.twnb-round .twnb-facts {
  color: var(--jp-content-font-color2);
  font-size: var(--jp-ui-font-size0);
}

.twnb-round .twnb-state,
.twnb-round-history .twnb-state {
  border-radius: 8px;
  padding: 0 8px;
  font-size: var(--jp-ui-font-size0);
  border: var(--jp-border-width) solid var(--jp-border-color1);
  color: var(--jp-content-font-color1);
  background: var(--jp-layout-color2);
}

.twnb-round .twnb-state-finished,
.twnb-round-history .twnb-state-finished {
  border-color: var(--jp-success-color1);
}

.twnb-round .twnb-state-failed,
.twnb-round .twnb-state-interrupted,
.twnb-round-history .twnb-state-failed,
.twnb-round-history .twnb-state-interrupted {
  border-color: var(--jp-error-color1);
}

.twnb-round .twnb-schema-note {
  margin: 6px 0;
  padding: 4px 8px;
  border-left: 3px solid var(--jp-warn-color1);
  background: var(--jp-layout-color2);
  color: var(--jp-content-font-color1);
}

.twnb-round .twnb-request {
  margin: 6px 0;
  font-style: italic;
}

.twnb-round .twnb-answer {
  margin: 6px 0;
  padding: 4px 10px;
  border-left: 3px solid var(--jp-brand-color1);
  background: var(--jp-layout-color1);
}

.twnb-round .twnb-markdown > :first-child {
  margin-top: 0;
}

.twnb-round .twnb-markdown > :last-child {
  margin-bottom: 0;
}

.twnb-round .twnb-section {
  margin: 6px 0;
}

.twnb-round .twnb-section > summary,
.twnb-round .twnb-post > summary {
  cursor: pointer;
  color: var(--jp-content-font-color1);
}

.twnb-round .twnb-section-title {
  font-weight: 600;
}

.twnb-round .twnb-section-body {
  padding: 4px 0 0 14px;
}

.twnb-round .twnb-plan-list {
  margin: 0;
  padding-left: 22px;
}

.twnb-round .twnb-step {
  margin: 2px 0;
}

.twnb-round .twnb-step-mark {
  display: inline-block;
  width: 1.4em;
}

.twnb-round .twnb-step-done .twnb-step-mark {
  color: var(--twnb-green);
}

.twnb-round .twnb-step-in_progress .twnb-step-mark {
  color: var(--twnb-blue);
}

.twnb-round .twnb-step-failed .twnb-step-mark,
.twnb-round .twnb-step-abandoned .twnb-step-mark {
  color: var(--twnb-red);
}

.twnb-round .twnb-step-state {
  margin-left: 8px;
  color: var(--jp-content-font-color2);
  font-size: var(--jp-ui-font-size0);
}

.twnb-round .twnb-actions {
  display: flex;
  gap: 8px;
  margin: 4px 0;
}

.twnb-round .twnb-actions button {
  cursor: pointer;
  padding: 2px 10px;
  border-radius: 3px;
  border: var(--jp-border-width) solid var(--jp-border-color1);
  background: var(--jp-layout-color2);
  color: var(--jp-ui-font-color1);
  font-size: var(--jp-ui-font-size1);
}

.twnb-round .twnb-actions button:hover:enabled {
  background: var(--jp-layout-color3);
}

.twnb-round .twnb-actions button:disabled {
  cursor: default;
  color: var(--jp-ui-font-color3);
}

.twnb-round .twnb-code pre,
.twnb-round pre.twnb-result,
.twnb-round pre.twnb-error {
  font-family: var(--jp-code-font-family);
  font-size: var(--jp-code-font-size);
  background: var(--jp-cell-editor-background);
  color: var(--jp-content-font-color1);
  border: var(--jp-border-width) solid var(--jp-cell-editor-border-color);
  padding: 6px 8px;
  margin: 4px 0;
  white-space: pre-wrap;
  overflow-wrap: anywhere;
}

.twnb-round pre.twnb-error {
  border-left: 3px solid var(--jp-error-color1);
}

.twnb-round .twnb-previews {
  display: flex;
  flex-wrap: wrap;
  gap: 10px;
  margin: 6px 0;
}

.twnb-round .twnb-preview {
  margin: 0;
  max-width: 340px;
}

.twnb-round .twnb-preview-image {
  max-width: 320px;
  max-height: 320px;
  cursor: pointer;
  background: white; /* plots are drawn for a white page; keep them readable in dark themes */
  border: var(--jp-border-width) solid var(--jp-border-color2);
}

.twnb-round .twnb-preview figcaption {
  font-size: var(--jp-ui-font-size0);
  overflow-wrap: anywhere;
}

.twnb-round a.twnb-artifact {
  color: var(--jp-content-link-color);
  margin-right: 8px;
}

.twnb-round .twnb-post {
  margin: 2px 0;
  border-bottom: var(--jp-border-width) solid var(--jp-border-color3);
}

.twnb-round .twnb-post-route {
  font-weight: 600;
  margin-right: 8px;
}

/* Step mode: the decision a person made on a plan or a piece of code, said quietly. */
.twnb-round .twnb-decision {
  color: var(--jp-content-font-color2);
  font-size: var(--jp-ui-font-size0);
  font-style: italic;
  margin-right: 8px;
}

.twnb-round .twnb-post-first-line {
  color: var(--jp-content-font-color2);
}

.twnb-round .twnb-exec {
  margin-right: 8px;
  font-size: var(--jp-ui-font-size0);
}

.twnb-round .twnb-exec-success {
  color: var(--twnb-green);
}

.twnb-round .twnb-exec-failure {
  color: var(--twnb-red);
}

.twnb-round .twnb-post-body {
  padding: 4px 0 6px 14px;
}

.twnb-round .twnb-field-name {
  color: var(--jp-content-font-color2);
}

.twnb-round-history {
  padding: 8px;
  color: var(--jp-ui-font-color1);
  background: var(--jp-layout-color1);
  font-size: var(--jp-ui-font-size1);
  overflow: auto;
}

.twnb-round-history .twnb-history-title {
  font-size: var(--jp-ui-font-size2);
  margin: 0 0 8px;
}

.twnb-round-history .twnb-history-list {
  margin: 0;
  padding-left: 0;
  list-style: none;
}

.twnb-round-history .twnb-history-item {
  display: flex;
  width: 100%;
  justify-content: space-between;
  gap: 6px;
  text-align: left;
  margin: 2px 0;
  padding: 4px 6px;
  cursor: pointer;
  border: var(--jp-border-width) solid var(--jp-border-color2);
  border-radius: 3px;
  background: var(--jp-layout-color0);
  color: var(--jp-ui-font-color1);
}

.twnb-round-history .twnb-history-item:hover {
  background: var(--jp-layout-color2);
}

/* The main view's code blocks: each with its outcome and the decision made on it. */
.twnb-round .twnb-code-block {
  margin: 6px 0 8px;
}

.twnb-round .twnb-code-head {
  display: flex;
  align-items: baseline;
  gap: 6px;
  flex-wrap: wrap;
}

.twnb-round .twnb-code-number {
  color: var(--jp-content-font-color2);
}

.twnb-round .twnb-outcome {
  border-radius: 8px;
  padding: 0 6px;
  font-size: var(--jp-ui-font-size0);
  border: var(--jp-border-width) solid var(--jp-border-color1);
  background: var(--jp-layout-color2);
}

.twnb-round .twnb-outcome-badge-ran {
  border-color: var(--jp-success-color1);
}

.twnb-round .twnb-outcome-badge-failed,
.twnb-round .twnb-outcome-badge-refused {
  border-color: var(--jp-error-color1);
}

.twnb-round .twnb-code-head .twnb-decision {
  font-size: var(--jp-content-font-size1);
}

.twnb-round pre.twnb-code-text {
  font-family: var(--jp-code-font-family);
  font-size: var(--jp-code-font-size);
  white-space: pre-wrap;
  margin: 4px 0;
  padding: 6px 8px;
  border: var(--jp-border-width) dashed var(--jp-border-color1);
}

.twnb-round .twnb-note {
  margin: 6px 0;
  padding: 2px 8px;
  border-left: 3px solid var(--jp-error-color1);
}

.twnb-round .twnb-note-held_back_cells,
.twnb-round .twnb-note-cut_off {
  border-left-color: var(--jp-warn-color1);
}

.twnb-round .twnb-artifact-name {
  font-family: var(--jp-code-font-family);
}

.twnb-round .twnb-timeline {
  margin: 6px 0;
}

.twnb-round .twnb-timeline-row {
  margin: 0 0 4px; /* each bar apart from the next row's label, as the static HTML's rows are */
}

.twnb-round .twnb-timeline-label {
  font-size: var(--jp-ui-font-size0);
  color: var(--jp-content-font-color2);
}

.twnb-round .twnb-bar {
  height: 6px;
  margin-top: 2px;
  border-radius: 2px;
  background: var(--jp-brand-color1);
}

.twnb-round .twnb-bar-code {
  background: var(--jp-success-color1);
}

.twnb-round .twnb-bar-failed {
  background: var(--jp-error-color1);
}

/* Step mode's wait for the user's decision: drawn as waiting (hatched), not as the code's time. */
.twnb-round .twnb-bar-wait {
  background: repeating-linear-gradient(45deg, var(--jp-border-color1) 0 3px, transparent 3px 6px);
}

.twnb-round .twnb-bar-skipped {
  background: var(--jp-border-color1);
}

.twnb-round .twnb-totals {
  font-size: var(--jp-ui-font-size0);
  color: var(--jp-content-font-color2);
}

.twnb-round .twnb-actions button.twnb-confirmed {
  border-color: var(--jp-success-color1);
}

/* The Rounds panel's state pill: its own height, centred, never stretched to the item's. */
.twnb-round-history .twnb-history-item .twnb-state {
  flex: none;
  align-self: center;
  line-height: 1.5;
  white-space: nowrap;
}

.twnb-round-history .twnb-history-item {
  align-items: center;
}

/* A plan step's Markdown is one line: its paragraph flows inline after the mark. */
.twnb-round .twnb-step-name p {
  display: inline;
  margin: 0;
}

/* An undone Round (%taskweaver undo): kept in the record, greyed under its header and its one line. */
.twnb-round.twnb-undone > :not(.twnb-header):not(.twnb-undone-line) {
  opacity: 0.5;
}

.twnb-round .twnb-undone-line {
  margin: 4px 0;
  padding: 2px 8px;
  border-left: 3px solid var(--jp-border-color1);
  color: var(--jp-ui-font-color2);
}

/*
 * Step mode's buttons stay in view whatever the code's length: the row sticks to the bottom of the
 * notebook's scroller (above the status bar) while its panel is on screen. Sticky needs no scrolling
 * box between the row and that scroller, so the boxes around a waiting panel let it overflow.
 */
.twnb-step-panel .twnb-step-buttons {
  position: sticky;
  bottom: 0;
  z-index: 1;
  padding: 4px 0;
  background: var(--jp-layout-color0);
}

.jp-Cell-outputArea.jp-OutputArea:has(.twnb-step-panel),
.jp-OutputArea-child:has(.twnb-step-panel),
.jp-OutputArea-output:has(.twnb-step-panel),
.jupyter-widgets.widget-box:has(.twnb-step-panel),
.jupyter-widgets.widget-box.twnb-step-panel {
  overflow: visible;
}
`,""]),o.d(n,{},{A:i})},314(t){t.exports=function(t){var n=[];return n.toString=function(){return this.map(function(n){var o="",r=void 0!==n[5];return n[4]&&(o+="@supports (".concat(n[4],") {")),n[2]&&(o+="@media ".concat(n[2]," {")),r&&(o+="@layer".concat(n[5].length>0?" ".concat(n[5]):""," {")),o+=t(n),r&&(o+="}"),n[2]&&(o+="}"),n[4]&&(o+="}"),o}).join("")},n.i=function(t,o,r,e,a){"string"==typeof t&&(t=[[null,t,void 0]]);var i={};if(r)for(var d=0;d<this.length;d++){var s=this[d][0];null!=s&&(i[s]=!0)}for(var p=0;p<t.length;p++){var b=[].concat(t[p]);r&&i[b[0]]||(void 0!==a&&(void 0===b[5]||(b[1]="@layer".concat(b[5].length>0?" ".concat(b[5]):""," {").concat(b[1],"}")),b[5]=a),o&&(b[2]&&(b[1]="@media ".concat(b[2]," {").concat(b[1],"}")),b[2]=o),e&&(b[4]?(b[1]="@supports (".concat(b[4],") {").concat(b[1],"}"),b[4]=e):b[4]="".concat(e)),n.push(b))}},n}},601(t){t.exports=function(t){return t[1]}},72(t){var n=[];function o(t){for(var o=-1,r=0;r<n.length;r++)if(n[r].identifier===t){o=r;break}return o}function r(t,r){for(var e={},a=[],i=0;i<t.length;i++){var d=t[i],s=r.base?d[0]+r.base:d[0],p=e[s]||0,b="".concat(s," ").concat(p);e[s]=p+1;var l=o(b),c={css:d[1],media:d[2],sourceMap:d[3],supports:d[4],layer:d[5]};if(-1!==l)n[l].references++,n[l].updater(c);else{var u=function(t,n){var o=n.domAPI(n);return o.update(t),function(n){n?(n.css!==t.css||n.media!==t.media||n.sourceMap!==t.sourceMap||n.supports!==t.supports||n.layer!==t.layer)&&o.update(t=n):o.remove()}}(c,r);r.byIndex=i,n.splice(i,0,{identifier:b,updater:u,references:1})}a.push(b)}return a}t.exports=function(t,e){var a=r(t=t||[],e=e||{});return function(t){t=t||[];for(var i=0;i<a.length;i++){var d=o(a[i]);n[d].references--}for(var s=r(t,e),p=0;p<a.length;p++){var b=o(a[p]);0===n[b].references&&(n[b].updater(),n.splice(b,1))}a=s}}},659(t){var n={};t.exports=function(t,o){var r=function(t){if(void 0===n[t]){var o=document.querySelector(t);if(window.HTMLIFrameElement&&o instanceof window.HTMLIFrameElement)try{o=o.contentDocument.head}catch(t){o=null}n[t]=o}return n[t]}(t);if(!r)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");r.appendChild(o)}},540(t){t.exports=function(t){var n=document.createElement("style");return t.setAttributes(n,t.attributes),t.insert(n,t.options),n}},56(t,n,o){t.exports=function(t){var n=o.nc;n&&t.setAttribute("nonce",n)}},825(t){t.exports=function(t){if("u"<typeof document)return{update:function(){},remove:function(){}};var n=t.insertStyleElement(t);return{update:function(o){var r,e,a;r="",o.supports&&(r+="@supports (".concat(o.supports,") {")),o.media&&(r+="@media ".concat(o.media," {")),(e=void 0!==o.layer)&&(r+="@layer".concat(o.layer.length>0?" ".concat(o.layer):""," {")),r+=o.css,e&&(r+="}"),o.media&&(r+="}"),o.supports&&(r+="}"),(a=o.sourceMap)&&"u">typeof btoa&&(r+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(a))))," */")),t.styleTagTransform(r,n,t.options)},remove:function(){var t;null===(t=n).parentNode||t.parentNode.removeChild(t)}}}},113(t){t.exports=function(t,n){if(n.styleSheet)n.styleSheet.cssText=t;else{for(;n.firstChild;)n.removeChild(n.firstChild);n.appendChild(document.createTextNode(t))}}},959(t,n,o){var r=o(72),e=o.n(r),a=o(825),i=o.n(a),d=o(659),s=o.n(d),p=o(56),b=o.n(p),l=o(540),c=o.n(l),u=o(113),w=o.n(u),f=o(646),h={};h.styleTagTransform=w(),h.setAttributes=b(),h.insert=s().bind(null,"head"),h.domAPI=i(),h.insertStyleElement=c(),e()(f.A,h),f.A&&f.A.locals&&f.A.locals}}]);